package mcp

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
)

// TestOnReload: each reload that found new content is reported once — nil
// when the new version serves, the error when it could not — and a save of
// the same bytes is not reported at all.
func TestOnReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.3md")
	writeByRename(t, path, agentText(1))
	open := func(context.Context) (*loader.Agent, error) { return openVersion(path) }
	changes := make(chan struct{}, 1)
	outcomes := make(chan error, 8)
	logs := &syncBuffer{}
	ready := make(chan struct{})
	s, err := NewServer(context.Background(), &Options{Source: changing(open, changes),
		Router: testRouterOptions(t), OnReload: func(err error) { outcomes <- err }, Ready: func() { close(ready) },
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The first load runs in the background: an edit before it would be
	// what it loads, and no reload.
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the first version did not load within 20s")
	}
	save := func(text string) {
		writeByRename(t, path, text)
		changes <- struct{}{}
	}
	next := func(step string, fails bool) {
		t.Helper()
		select {
		case err := <-outcomes:
			if (err != nil) != fails {
				t.Fatalf("%s: reported %v, want a failure: %v", step, err, fails)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no reload reported within 20s", step)
		}
	}
	save(agentText(2))
	next("edit", false)
	save("---\n3md: 1.0\n---\n@plane z=1 label=\"x\" kind=skill triggers=\"a\" inputs=\"\"\"\n")
	next("broken edit", true)
	// The served bytes saved again: not a reload, so not reported.
	save(agentText(2))
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "content is unchanged"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the same-bytes save was not looked at within 20s:\n%s", logs)
		}
	}
	save(agentText(3))
	next("fixed", false)
	select {
	case err := <-outcomes:
		t.Fatalf("a reload reported more than once, or a same-bytes save reported: %v", err)
	default:
	}
}

// TestMethods: every method of a server's table and the client's
// notifications, sorted, and nothing a client made up.
func TestMethods(t *testing.T) {
	got := Methods()
	if !slices.IsSorted(got) {
		t.Errorf("not sorted: %v", got)
	}
	s := newServer(&Options{Source: Loaded(openAda(t))})
	want := []string{methodInitialized, methodCancelled}
	for name := range s.methods {
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Methods() = %v\nthe server's table and notifications: %v", got, want)
	}
	for _, m := range []string{methodInitialize, methodToolsCall, methodResourcesRead, methodListen, methodSkillsList, methodDiscover, methodComplete} {
		if !slices.Contains(got, m) {
			t.Errorf("Methods() lacks %s", m)
		}
	}
	if slices.Contains(got, "logging/setLevel") {
		t.Errorf("Methods() names a method the server does not serve: %v", got)
	}
}
