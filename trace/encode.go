package trace

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends e as one line of JSON, without the newline, to dst and
// returns the extended slice. The output is byte for byte what json.Marshal
// produces for the same Event (same keys, order, omitempty, escaping and
// number formatting), but it is several times faster and does not allocate
// when dst has room, because the simulator writes millions of events.
//
// The one difference: json.Marshal refuses NaN and ±Inf, while AppendJSON,
// which cannot fail, writes null for them (a reader then sees a nil Value or
// a zero coordinate).
func AppendJSON(dst []byte, e *Event) []byte {
	dst = append(dst, `{"t":`...)
	dst = strconv.AppendInt(dst, e.T, 10)
	if e.Wall != 0 {
		dst = append(dst, `,"wall":`...)
		dst = strconv.AppendInt(dst, e.Wall, 10)
	}
	if e.HLC != nil {
		dst = append(dst, `,"hlc":{"w":`...)
		dst = strconv.AppendInt(dst, e.HLC.Wall, 10)
		dst = append(dst, `,"l":`...)
		dst = strconv.AppendUint(dst, uint64(e.HLC.Logical), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"node":`...)
	dst = strconv.AppendUint(dst, uint64(e.Node), 10)
	dst = append(dst, `,"ev":`...)
	dst = appendString(dst, e.Ev)

	dst = appendStr(dst, `,"kind":`, e.Kind)
	dst = appendUint(dst, `,"from":`, uint64(e.From))
	dst = appendUint(dst, `,"to":`, uint64(e.To))
	dst = appendUint(dst, `,"seq":`, e.Seq)
	dst = appendUint(dst, `,"origin":`, uint64(e.Origin))
	dst = appendUint(dst, `,"oseq":`, e.OSeq)
	dst = appendInt(dst, `,"hops":`, int64(e.Hops))
	dst = appendInt(dst, `,"bytes":`, int64(e.Bytes))
	dst = appendStr(dst, `,"reason":`, e.Reason)

	dst = appendUint(dst, `,"leader":`, uint64(e.Leader))
	if e.Value != nil {
		dst = append(dst, `,"value":`...)
		dst = appendFloat(dst, *e.Value)
	}
	dst = appendStr(dst, `,"epoch":`, e.Epoch)
	dst = appendUint(dst, `,"peer":`, uint64(e.Peer))
	dst = appendStr(dst, `,"text":`, e.Text)
	if e.Pos != nil {
		dst = append(dst, `,"pos":[`...)
		dst = appendFloat(dst, e.Pos[0])
		dst = append(dst, ',')
		dst = appendFloat(dst, e.Pos[1])
		dst = append(dst, ',')
		dst = appendFloat(dst, e.Pos[2])
		dst = append(dst, ']')
	}

	dst = appendInt(dst, `,"schema":`, int64(e.Schema))
	dst = appendStr(dst, `,"run":`, e.Run)
	dst = appendStr(dst, `,"driver":`, e.Driver)
	dst = appendStr(dst, `,"protocol":`, e.Protocol)
	dst = appendStr(dst, `,"scenario":`, e.Scenario)
	dst = appendUint(dst, `,"seed":`, e.Seed)
	dst = appendStr(dst, `,"host":`, e.Host)
	dst = appendStr(dst, `,"scenario_hash":`, e.ScenarioHash)
	dst = appendStr(dst, `,"src":`, e.Src)
	return append(dst, '}')
}

// appendStr appends an omitempty string field: key is `,"name":`.
func appendStr(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendString(append(dst, key...), s)
}

// appendUint appends an omitempty unsigned field.
func appendUint(dst []byte, key string, v uint64) []byte {
	if v == 0 {
		return dst
	}
	return strconv.AppendUint(append(dst, key...), v, 10)
}

// appendInt appends an omitempty signed field.
func appendInt(dst []byte, key string, v int64) []byte {
	if v == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, key...), v, 10)
}

// appendFloat formats f as encoding/json does: ES6 number formatting, with
// exponents only below 1e-6 and from 1e21, and no zero-padded exponent.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// safe marks the ASCII bytes json.Marshal copies unescaped: printable
// characters other than the quote, the backslash and the HTML-sensitive
// <, > and & (json.Marshal escapes those by default).
var safe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = true
	}
	for _, b := range `"\<>&` {
		t[b] = false
	}
	return t
}()

// appendString appends s quoted and escaped exactly as json.Marshal does,
// including \ufffd for invalid UTF-8 and \u2028, \u2029 escapes.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
