package mcp

import (
	"context"
	"testing"
)

// TestTrackerCutCountsWhatItDecides: the cut at EOF counts each owed
// request as running (cancelled) or not started, and that is what becomes
// of it: a request queued at the cut is told not to run when its handler
// slot comes, even when the slot is the one a cancelled request just
// freed. Counting the queue in a second pass after the cancels logged
// not_started=0 for a request answered "Not run" (16 of 300 runs of
// TestEOFCutsOwedRequests under -race).
func TestTrackerCutCountsWhatItDecides(t *testing.T) {
	tr := newTracker()
	running := &inflight{key: "1", method: "test/wait"}
	queued := &inflight{key: "2", method: "test/wait"}
	claimed := &inflight{key: "3", method: "test/wait"}
	for _, e := range []*inflight{running, queued, claimed} {
		tr.add(e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if live, cut := tr.attach(running, cancel); !live || cut {
		t.Fatalf("attach before the cut = live %v, cut %v; want live, not cut", live, cut)
	}
	claimedCtx, claimedCancel := context.WithCancel(context.Background())
	defer claimedCancel()
	tr.attach(claimed, claimedCancel)
	if !tr.finish(claimed) {
		t.Fatal("finish of a live request = false")
	}

	r, q := tr.cutOwed()
	if r != 1 || q != 1 {
		t.Errorf("cutOwed = running %d, queued %d; want 1 and 1 (the claimed answer is owed nothing)", r, q)
	}
	if ctx.Err() == nil {
		t.Error("the running request's context was not cancelled")
	}
	if claimedCtx.Err() != nil {
		t.Error("a request whose answer was claimed was cancelled")
	}
	// The cancelled request finishes, and its slot goes to the queued one.
	tr.finish(running)
	tr.release(running)
	_, stop := context.WithCancel(context.Background())
	defer stop()
	if live, cut := tr.attach(queued, stop); !live || !cut {
		t.Errorf("attach of a request queued at the cut = live %v, cut %v; want live and cut (answered without running)", live, cut)
	}
}
