package skillsync

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/testkit"
)

// holdStreams serves f over Streamable HTTP answering every request on
// an event stream that it then keeps open until the client goes, as a
// server that never ends its streams does.
func (f *fake) holdStreams(t *testing.T) string {
	t.Helper()
	quit := make(chan struct{})
	url := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m, ok := readCall(w, r)
		if !ok {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", f.answer(m))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-quit: // the test is over: let the server close
		}
	}))
	t.Cleanup(func() { close(quit) }) // runs before the server's Close
	return url + "/mcp"
}

// openFDs counts this process's open descriptors (testkit.OpenFDs).
var openFDs = testkit.OpenFDs

// TestWatchDescriptorsFlat: under --watch, 100 passes against a server
// that holds every event stream open leave the descriptors where they
// were after the first: each answer's stream is closed once it is in.
func TestWatchDescriptorsFlat(t *testing.T) {
	f := newFake("ext", library(3))
	url := f.holdStreams(t)
	var passes atomic.Int64
	passed := make(chan struct{}, 1)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, &Source{URL: url}, &Options{Dir: dir}, &WatchOptions{Interval: time.Millisecond,
			OnPass: func(_ *Summary, err error) {
				if err == nil {
					passes.Add(1)
				}
				select {
				case passed <- struct{}{}:
				default:
				}
			}})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	})
	// waitPasses waits for n good passes in all (bounded generously: the
	// machine may be loaded; nothing here is timed).
	waitPasses := func(n int64) {
		deadline := time.After(60 * time.Second)
		for passes.Load() < n {
			select {
			case <-passed:
			case <-deadline:
				t.Fatalf("only %d good passes of %d within 60s", passes.Load(), n)
			}
		}
	}
	waitPasses(2)
	before := openFDs(t)
	const more = 100
	waitPasses(2 + more)
	// The server's end of a connection the client closed goes once its
	// handler sees it: wait for that (bounded, not timed).
	const slack = 8
	n := openFDs(t)
	for deadline := time.Now().Add(20 * time.Second); n > before+slack && time.Now().Before(deadline); n = openFDs(t) {
		time.Sleep(20 * time.Millisecond)
	}
	if n > before+slack {
		t.Fatalf("%d descriptors open after %d more passes, %d before: each pass leaks its streams", n, more, before)
	}
}
