package link

// optError names the socket option that could not be set.
type optError struct {
	opt string
	err error
}

func (e *optError) Error() string { return "set " + e.opt + ": " + e.err.Error() }
func (e *optError) Unwrap() error { return e.err }
