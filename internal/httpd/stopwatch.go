package httpd

import (
	"log/slog"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// SIGINT and SIGTERM stop serve in every state (docs/http.md §7). The first
// one cancels the command's context (its signal.NotifyContext): the
// server stops listening, drains and returns, in at most ShutdownTimeout.
// That relies on every step noticing the context, and a step that does
// not — a read that blocks, a load that runs on — would leave the process
// deaf to signals, since the signal's default action (exit) is replaced
// by the context. So the command also keeps this watch: a second signal
// exits at once, and the process exits by itself when the graceful stop
// takes longer than it can legitimately take.

// Bounds on a graceful stop past which serve exits regardless.
const (
	// stopGraceStarting is how long a stop asked for before the server
	// listens may take: nothing is served yet, so nothing is lost by
	// exiting; the grace lets an agent load or a cache write that is
	// almost done finish cleanly.
	stopGraceStarting = 5 * time.Second
	// stopGraceMargin is added to ShutdownTimeout once listening: the
	// time to close the connections cut off and stop the watchers.
	stopGraceMargin = 10 * time.Second
)

// StopWatch escalates stop signals for one run of a server.
type StopWatch struct {
	sigs    <-chan os.Signal
	exit    func() // ends the process
	log     *slog.Logger
	drain   time.Duration // Options.ShutdownTimeout
	serving atomic.Bool   // set once the server listens
}

// WatchStopSignals starts the watch for a server whose graceful stop may
// take drain once it listens; exit ends the process (os.Exit with a
// failure status). stop ends the watch: the server returned in time.
func WatchStopSignals(log *slog.Logger, drain time.Duration, exit func()) (w *StopWatch, stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	w = &StopWatch{sigs: sigs, exit: exit, log: log, drain: drain}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		w.run(done)
	}()
	return w, func() {
		signal.Stop(sigs)
		close(done)
		<-finished
	}
}

// Serving says the server now listens: a stop may take the drain time.
func (w *StopWatch) Serving() { w.serving.Store(true) }

// run waits for the first signal, then for a second one or the end of
// the grace, whichever comes first, and exits; done ends it.
func (w *StopWatch) run(done <-chan struct{}) {
	var first os.Signal
	var deadline <-chan time.Time
	var grace time.Duration
	for {
		select {
		case <-done:
			return
		case sig := <-w.sigs:
			if first == nil {
				first, grace = sig, stopGraceStarting
				if w.serving.Load() {
					grace = w.drain + stopGraceMargin
				}
				deadline = time.After(grace)
				continue
			}
			w.log.Error("second signal: stopping at once, cutting off what is still running", "signal", sig.String())
			w.exit()
			return
		case <-deadline:
			what := "the server still had not started"
			if w.serving.Load() {
				what = "requests or streams were still running"
			}
			w.log.Error("not stopped in time after the signal; exiting", "signal", first.String(), "after", grace, "why", what)
			w.exit()
			return
		}
	}
}
