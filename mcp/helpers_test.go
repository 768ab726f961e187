package mcp

import (
	"testing"

	"github.com/agent3md/agent3md/loader"

	"github.com/agent3md/agent3md/router"
)

// testRouterOptions keeps tests away from the user's cache directory.
func testRouterOptions(t testing.TB) *router.Options {
	return &router.Options{CacheDir: t.TempDir(), NoCache: true}
}

// openAda opens the small test agent.
func openAda(t testing.TB) *loader.Agent {
	t.Helper()
	return openAdaWith(t, nil)
}

// openPinnedAda opens the test agent pinned (never re-scanned), as the
// servers open theirs: its body answers may be cached.
func openPinnedAda(t testing.TB) *loader.Agent {
	t.Helper()
	return openAdaWith(t, &loader.Options{NoRescan: true})
}

func openAdaWith(t testing.TB, opts *loader.Options) *loader.Agent {
	t.Helper()
	a, err := loader.Open("testdata/ada.3md", opts)
	if err != nil {
		t.Fatalf("opening the test agent: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// changing is a source opened by open, reopened by open on each signal on
// ch.
func changing(open OpenFunc, ch <-chan struct{}) Source {
	s := Opener(open, nil)
	s.Changes = Signals(ch, open)
	return s
}

// loadedChanging serves a, reopened by reopen on each signal on ch.
func loadedChanging(a *loader.Agent, ch <-chan struct{}, reopen OpenFunc) Source {
	s := Loaded(a)
	s.Changes = Signals(ch, reopen)
	return s
}
