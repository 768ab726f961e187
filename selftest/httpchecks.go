package selftest

// httpChecks are the transport's own checks, run only over HTTP.
func (r *runner) httpChecks() {
	if !r.overHTTP() {
		return
	}
}
