package httpd

import (
	"errors"
	"fmt"
	"time"
)

// Ceilings of the bounds Check accepts: a body is held whole in memory,
// once per request being served; each request and stream is a few
// goroutines; answers held are memory too.
const (
	MaxBodyBytesCeiling    = 1 << 30
	MaxConcurrentCeiling   = 1 << 16
	MaxStreamsCeiling      = 1 << 20
	MaxAnswerMemoryCeiling = 1 << 40
)

// Check refuses options a person set out of range, naming serve's flag
// for each: a bound of 0 or less (which New would silently take for its
// default) or past its ceiling, a write or shutdown timeout that is not
// positive, and MetricsPublic without a MetricsAddr. A program that means
// the defaults leaves fields zero and does not call it.
func (o *Options) Check() error {
	for _, f := range []struct {
		name   string
		v, max int64
	}{
		{"max-body-bytes", o.MaxBodyBytes, MaxBodyBytesCeiling},
		{"max-concurrent", int64(o.MaxConcurrent), MaxConcurrentCeiling},
		{"max-streams", int64(o.MaxStreams), MaxStreamsCeiling},
		{"max-answer-memory", o.MaxAnswerMemory, MaxAnswerMemoryCeiling},
		{"max-body-memory", o.MaxBodyMemory, MaxAnswerMemoryCeiling},
		{"max-credential-bytes", o.MaxCredentialBytes, MaxCredentialBytesCeiling},
	} {
		if f.v < 1 || f.v > f.max {
			return fmt.Errorf("--%s %d is out of range: use a value from 1 to %d", f.name, f.v, f.max)
		}
	}
	if o.MaxBodyMemory < o.MaxBodyBytes {
		return fmt.Errorf("--max-body-memory %d is less than --max-body-bytes %d: a body of the largest size could never be read; raise --max-body-memory", o.MaxBodyMemory, o.MaxBodyBytes)
	}
	if o.MetricsPublic && o.MetricsAddr == "" {
		return errors.New("--metrics-public applies to --metrics-addr, which is not given: /metrics is served on --addr behind the token")
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"write-timeout", o.WriteTimeout}, {"shutdown-timeout", o.ShutdownTimeout}, {"credential-timeout", o.CredentialTimeout}} {
		if f.d <= 0 {
			return fmt.Errorf("--%s %s is out of range: use a positive duration, such as 30s or 2m", f.name, f.d)
		}
	}
	return nil
}
