package httpd

import (
	"strings"
	"testing"
	"time"
)

// TestOptionsCheck: the defaults pass; each bound refuses 0, a negative
// value and one past its ceiling, naming its flag; timeouts must be
// positive; --metrics-public needs --metrics-addr.
func TestOptionsCheck(t *testing.T) {
	good := func() Options {
		return Options{MaxBodyBytes: DefaultMaxBodyBytes, MaxConcurrent: DefaultMaxConcurrent, MaxStreams: DefaultMaxStreams,
			MaxAnswerMemory: DefaultMaxAnswerMemory, MaxBodyMemory: DefaultMaxBodyMemory, WriteTimeout: DefaultWriteTimeout, ShutdownTimeout: DefaultShutdownTimeout,
			MaxCredentialBytes: DefaultMaxCredentialBytes, CredentialTimeout: DefaultCredentialTimeout}
	}
	o := good()
	if err := o.Check(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
	for _, tt := range []struct {
		set  func(*Options)
		want string
	}{
		{func(o *Options) { o.MaxBodyBytes = 0 }, "--max-body-bytes 0 is out of range: use a value from 1 to 1073741824"},
		{func(o *Options) { o.MaxBodyBytes = MaxBodyBytesCeiling + 1 }, "--max-body-bytes 1073741825 is out of range"},
		{func(o *Options) { o.MaxConcurrent = -1 }, "--max-concurrent -1 is out of range"},
		{func(o *Options) { o.MaxStreams = MaxStreamsCeiling + 1 }, "--max-streams 1048577 is out of range"},
		{func(o *Options) { o.MaxAnswerMemory = 0 }, "--max-answer-memory 0 is out of range"},
		{func(o *Options) { o.MaxBodyMemory = 0 }, "--max-body-memory 0 is out of range"},
		{func(o *Options) { o.MaxBodyMemory = DefaultMaxBodyBytes - 1 }, "--max-body-memory 4194303 is less than --max-body-bytes 4194304: a body of the largest size could never be read; raise --max-body-memory"},
		{func(o *Options) { o.WriteTimeout = 0 }, "--write-timeout 0s is out of range: use a positive duration"},
		{func(o *Options) { o.ShutdownTimeout = -time.Second }, "--shutdown-timeout -1s is out of range"},
		{func(o *Options) { o.MaxCredentialBytes = MaxCredentialBytesCeiling + 1 }, "--max-credential-bytes 67108865 is out of range"},
		{func(o *Options) { o.CredentialTimeout = 0 }, "--credential-timeout 0s is out of range"},
		{func(o *Options) { o.MetricsPublic = true }, "--metrics-public applies to --metrics-addr"},
	} {
		o := good()
		tt.set(&o)
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check() = %v, want %q", err, tt.want)
		}
	}
	o = good()
	o.MaxBodyBytes, o.MaxBodyMemory, o.MaxStreams, o.MetricsPublic, o.MetricsAddr = MaxBodyBytesCeiling, MaxBodyBytesCeiling, MaxStreamsCeiling, true, "0.0.0.0:9100"
	if err := o.Check(); err != nil {
		t.Errorf("ceilings and a public metrics address refused: %v", err)
	}
}
