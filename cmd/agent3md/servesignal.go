package main

import (
	"log/slog"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// SIGINT and SIGTERM stop serve in every state (docs/http.md §7). The first
// one cancels the command's context (main's signal.NotifyContext): serve
// stops listening, drains and exits, in at most --shutdown-timeout. That
// relies on every step noticing the context, and a step that does not —
// a read that blocks, a load that runs on — would leave the process
// deaf to signals, since the signal's default action (exit) is replaced
// by the context. So serve also keeps this watch: a second signal exits
// at once, and the process exits by itself when the graceful stop takes
// longer than it can legitimately take.

// Bounds on a graceful stop past which serve exits regardless.
const (
	// stopGraceStarting is how long a stop asked for before the server
	// listens may take: nothing is served yet, so nothing is lost by
	// exiting; the grace lets an agent load or a cache write that is
	// almost done finish cleanly.
	stopGraceStarting = 5 * time.Second
	// stopGraceMargin is added to --shutdown-timeout once listening: the
	// time to close the connections cut off and stop the watchers.
	stopGraceMargin = 10 * time.Second
)

// stopWatch escalates signals for one serve run.
type stopWatch struct {
	sigs    <-chan os.Signal
	exit    func(code int) // os.Exit but for tests
	log     *slog.Logger
	drain   time.Duration // --shutdown-timeout
	serving atomic.Bool   // set once the server listens
}

// watchStopSignals starts the watch for serve; stop ends it (serve
// returned in time).
func watchStopSignals(log *slog.Logger, drain time.Duration) (w *stopWatch, stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	w = &stopWatch{sigs: sigs, exit: os.Exit, log: log, drain: drain}
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

// run waits for the first signal, then for a second one or the end of
// the grace, whichever comes first, and exits; done ends it.
func (w *stopWatch) run(done <-chan struct{}) {
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
			w.exit(exitUsage)
			return
		case <-deadline:
			what := "the server still had not started"
			if w.serving.Load() {
				what = "requests or streams were still running"
			}
			w.log.Error("not stopped in time after the signal; exiting", "signal", first.String(), "after", grace, "why", what)
			w.exit(exitUsage)
			return
		}
	}
}
