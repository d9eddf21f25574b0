package wire

import "testing"

// body30 is a typical 30-byte message body; the frame codec does not look
// inside it.
var body30 = []byte("\x85\xa1L\x07\xa1S\x2a\xa1V\xcb\x3f\xe0\x00\x00\x00\x00\x00\x00\xa1T\xa6hello!\xa1K\xc3")

func TestBody30(t *testing.T) {
	if len(body30) != 30 || CheckMsgpack(body30) != nil {
		t.Fatalf("the benchmark body is %d bytes, msgpack check %v", len(body30), CheckMsgpack(body30))
	}
}

func benchFrame() Frame {
	return sampleFrames(body30)[1] // broadcast
}

func BenchmarkEncode(b *testing.B) {
	for _, bc := range []struct {
		name string
		key  []byte
	}{{"plain", nil}, {"hmac", testKey}} {
		b.Run(bc.name, func(b *testing.B) {
			f := benchFrame()
			buf := make([]byte, 0, MaxFrame)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = f.AppendTo(buf[:0], bc.key)
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, bc := range []struct {
		name string
		key  []byte
	}{{"plain", nil}, {"hmac", testKey}} {
		b.Run(bc.name, func(b *testing.B) {
			f := benchFrame()
			buf, err := f.AppendTo(nil, bc.key)
			if err != nil {
				b.Fatal(err)
			}
			var g Frame
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				if err := Decode(buf, bc.key, &g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCodec(b *testing.B) {
	c, err := NewCodec(testSpec)
	if err != nil {
		b.Fatal(err)
	}
	code, body, _ := c.Encode(samplePing)
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Encode(samplePing)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Decode(code, body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			CheckMsgpack(body)
		}
	})
}
