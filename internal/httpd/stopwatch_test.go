package httpd

import (
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// TestStopWatch: after a first signal, the process exits by itself once
// the graceful stop outlasts what it can take (5 s before listening,
// ShutdownTimeout plus 10 s after), and at once on a second signal; a
// server that returns in time is never exited.
func TestStopWatch(t *testing.T) {
	const drain = 20 * time.Second
	for _, tt := range []struct {
		name     string
		serving  bool
		signals  int
		returnAt time.Duration // serve returns by itself then (0: never)
		wantExit time.Duration // -1: no exit
		wantLog  string
	}{
		{name: "stuck while starting", signals: 1, wantExit: stopGraceStarting, wantLog: "the server still had not started"},
		{name: "stuck while draining", serving: true, signals: 1, wantExit: drain + stopGraceMargin, wantLog: "requests or streams were still running"},
		{name: "second signal", serving: true, signals: 2, wantExit: 0, wantLog: "second signal: stopping at once"},
		{name: "second signal while starting", signals: 2, wantExit: 0, wantLog: "second signal"},
		{name: "returns in time", serving: true, signals: 1, returnAt: drain, wantExit: -1},
		{name: "no signal", serving: true, returnAt: time.Hour, wantExit: -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sigs := make(chan os.Signal, 2)
				var log syncBuffer
				exited := time.Duration(-1)
				start := time.Now()
				w := &StopWatch{sigs: sigs, drain: drain, log: slog.New(slog.NewTextHandler(&log, nil)),
					exit: func() { exited = time.Since(start) }}
				w.serving.Store(tt.serving)
				done := make(chan struct{})
				finished := make(chan struct{})
				go func() { defer close(finished); w.run(done) }()
				for range tt.signals {
					sigs <- syscall.SIGTERM
				}
				if tt.returnAt > 0 {
					time.Sleep(tt.returnAt) // fake time: serve returning then
					close(done)
				}
				<-finished
				if exited != tt.wantExit {
					t.Fatalf("exited after %s, want %s (-1s: never)", exited, tt.wantExit)
				}
				if !strings.Contains(log.String(), tt.wantLog) {
					t.Fatalf("log %q lacks %q", log.String(), tt.wantLog)
				}
			})
		})
	}
}
