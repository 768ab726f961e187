package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
)

// watchedServer starts a server opened by open that watches what
// changes names; reloads reports each reload's outcome.
func watchedServer(t *testing.T, changes Changes, open OpenFunc) (*Server, <-chan error) {
	t.Helper()
	reloads := make(chan error, 8)
	src := Opener(open, nil)
	src.Changes = changes
	S, err := NewServer(context.Background(), &Options{
		Source: src, Router: testRouterOptions(t),
		OnReload: func(err error) { reloads <- err },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(S.Close)
	return S, reloads
}

// awaitReload waits for the next reload's outcome.
func awaitReload(t *testing.T, reloads <-chan error) {
	t.Helper()
	select {
	case err := <-reloads:
		if err != nil {
			t.Fatalf("reload failed: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no reload after the change")
	}
}

// TestWatchFile: a server given an agent file to watch reloads it when it
// is saved by rename, with no signal from its caller.
func TestWatchFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.3md")
	writeByRename(t, path, agentText(1))
	open := func(context.Context) (*loader.Agent, error) { return openVersion(path) }
	S, reloads := watchedServer(t, WatchFile(path, open), open)
	if !S.srv.watching() {
		t.Fatal("a watched server does not say it watches")
	}
	if err := S.srv.awaitLoad(context.Background()); err != nil {
		t.Fatal(err)
	}
	writeByRename(t, path, agentText(2))
	awaitReload(t, reloads)
	if n := S.srv.skillCount.Load(); n != 3 {
		t.Errorf("after the save: %d skills, want version 2's 3", n)
	}
}

// TestWatchFolders: a server given skill folders to watch reloads them
// when a skill folder is added below a root.
func TestWatchFolders(t *testing.T) {
	root := t.TempDir()
	skill := func(name string) {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: Does "+name+".\n---\nBody.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	skill("alpha")
	open := func(ctx context.Context) (*loader.Agent, error) {
		return loader.OpenFolders(ctx, []string{root}, &loader.FolderOptions{NoRescan: true})
	}
	S, reloads := watchedServer(t, WatchFolders([]string{root}, open), open)
	if err := S.srv.awaitLoad(context.Background()); err != nil {
		t.Fatal(err)
	}
	skill("beta")
	awaitReload(t, reloads)
	if n := S.srv.skillCount.Load(); n != 2 {
		t.Errorf("after a skill was added: %d skills, want 2", n)
	}
}

// TestCloseStopsWatcher: Close has stopped the server's watcher by the
// time it returns, though the context the server started with is still
// live: no watcher can log into its caller's output afterwards.
func TestCloseStopsWatcher(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.3md")
	writeByRename(t, path, agentText(1))
	open := func(context.Context) (*loader.Agent, error) { return openVersion(path) }
	for _, w := range []Changes{WatchFile(path, open), WatchFolders([]string{dir}, open)} {
		src := Opener(open, nil)
		src.Changes = w
		S, err := NewServer(context.Background(), &Options{Source: src, Router: testRouterOptions(t)})
		if err != nil {
			t.Fatal(err)
		}
		ch := S.srv.watcher.Changes()
		S.Close()
		// A change signalled before the stop may be pending (a watcher
		// holds at most one); the close must be right behind it.
		stopped := false
		for k := 0; k < 2 && !stopped; k++ {
			select {
			case _, open := <-ch:
				stopped = !open
			default:
				k = 2
			}
		}
		if !stopped {
			t.Errorf("%+v: watcher still running after Close returned", w)
		}
	}
}

// TestWatchOptionsRefused: an empty Source, Changes without a reopen
// function, or naming nothing are refused by NewServer and Serve, not
// served without reloads.
func TestWatchOptionsRefused(t *testing.T) {
	open := func(context.Context) (*loader.Agent, error) { return openAda(t), nil }
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"empty source", Options{}, "Source is empty"},
		{"no reopen", Options{Source: watched(open, WatchFile("testdata/ada.3md", nil))}, "no reopen function"},
		{"no signals", Options{Source: watched(open, Signals(nil, open))}, "names no file, no folder and no signals"},
		{"nothing named", Options{Source: watched(open, WatchFile("", open))}, "names no file, no folder and no signals"},
		{"no folders", Options{Source: watched(open, WatchFolders(nil, open))}, "names no file, no folder and no signals"},
	} {
		opts := tt.opts
		if _, err := NewServer(context.Background(), &opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: NewServer = %v, want %q", tt.name, err, tt.want)
		}
		opts = tt.opts
		if err := Serve(context.Background(), strings.NewReader(""), &strings.Builder{}, &opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Serve = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// watched is a source opened by open whose changes c names.
func watched(open OpenFunc, c Changes) Source {
	s := Opener(open, nil)
	s.Changes = c
	return s
}

// TestWithDefaults: every unset field gets its default in one place, set
// fields are kept, and the caller's Options are not written to.
func TestWithDefaults(t *testing.T) {
	var zero Options
	o := zero.withDefaults()
	if o.Version != "dev" || o.MaxLineBytes != DefaultMaxLineBytes || o.MaxInFlight != DefaultMaxInFlight ||
		o.MaxPendingBytes != DefaultMaxPendingBytes || o.MaxAnswerBytes != DefaultMaxAnswerBytes || o.Logger == nil {
		t.Errorf("defaults: %+v", o)
	}
	if zero.Version != "" || zero.Logger != nil {
		t.Errorf("withDefaults wrote to its receiver: %+v", zero)
	}
	set := Options{Version: "v1", MaxLineBytes: 1, MaxInFlight: 2, MaxPendingBytes: 3, MaxAnswerBytes: 4}
	if o := set.withDefaults(); o.Version != "v1" || o.MaxLineBytes != 1 || o.MaxInFlight != 2 || o.MaxPendingBytes != 3 || o.MaxAnswerBytes != 4 {
		t.Errorf("set fields changed: %+v", o)
	}
}
