package wire

import "errors"

// reasonError is a decode failure class. Its text is the counter label.
type reasonError struct{ reason string }

func (e *reasonError) Error() string { return "wire: " + e.reason }

// The reasons a frame or body is rejected. Decoders wrap them with detail;
// test with errors.Is and label counters with Reason.
var (
	ErrShort    error = &reasonError{"short"}        // fewer bytes than the header or the type's section needs
	ErrMagic    error = &reasonError{"magic"}        // not "MNET": not our protocol
	ErrVersion  error = &reasonError{"version"}      // a version this code does not speak
	ErrFlags    error = &reasonError{"flags"}        // unknown flag bits or a non-zero reserved byte
	ErrType     error = &reasonError{"type"}         // unknown or reserved frame type
	ErrLength   error = &reasonError{"length"}       // body too long, or bytes left over after the frame
	ErrField    error = &reasonError{"field"}        // a field value the type forbids (broadcast destination on a unicast, NaN position, ...)
	ErrHMAC     error = &reasonError{"hmac"}         // the HMAC does not match the run's key
	ErrNoHMAC   error = &reasonError{"no-hmac"}      // the run has a key but the frame is not authenticated
	ErrCode     error = &reasonError{"code"}         // a message type code the codec does not know
	ErrBody     error = &reasonError{"body"}         // a message body that fails the msgpack pre-scan or decoding
	ErrNotFound error = &reasonError{"unregistered"} // encoding a message type the spec does not list
	ErrValue    error = &reasonError{"value"}        // a float field in a body that is NaN, ±Inf, -0 or out of the run's range (Bounds)
	ErrMember   error = &reasonError{"member"}       // a NodeID field in a body naming no member of the run (Bounds)
	ErrClock    error = &reasonError{"clock"}        // a remote clock further ahead than the maximum offset (Clock)
)

var reasons = []error{ErrShort, ErrMagic, ErrVersion, ErrFlags, ErrType, ErrLength, ErrField, ErrHMAC, ErrNoHMAC, ErrCode, ErrBody, ErrNotFound, ErrValue, ErrMember, ErrClock}

// Reason returns a short label for err suitable as a metrics counter label:
// "short", "magic", "version", "flags", "type", "length", "field", "hmac",
// "no-hmac", "code", "body", "unregistered", "value", "member", "clock"; "" for nil and "other" for an
// error that is none of these.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	for _, r := range reasons {
		if errors.Is(err, r) {
			return r.(*reasonError).reason
		}
	}
	return "other"
}
