package watch

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// skillTree makes a skills folder with two skills, one with a file deep
// inside, and returns its root.
func skillTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "skills")
	for _, f := range []string{
		"deploy/SKILL.md",
		"deploy/references/deep/notes.md",
		"build/SKILL.md",
		"build/scripts/run.sh",
	} {
		p := filepath.Join(root, filepath.FromSlash(f))
		check(t, os.MkdirAll(filepath.Dir(p), 0o755))
		check(t, os.WriteFile(p, []byte("v0 of "+f+"\n"), 0o644))
	}
	return root
}

func newTreeWatcher(t *testing.T, roots []string, opts *Options) *Watcher {
	t.Helper()
	w, err := NewTree(roots, opts)
	check(t, err)
	t.Cleanup(func() { w.Close() })
	return w
}

// treeChanges are the changes a skills server must hear about: a skill
// folder and a file deep inside one, each added, edited, renamed and
// deleted.
var treeChanges = []struct {
	name   string
	change func(t *testing.T, root string)
}{
	{"add skill folder", func(t *testing.T, root string) {
		check(t, os.MkdirAll(filepath.Join(root, "lint"), 0o755))
		check(t, os.WriteFile(filepath.Join(root, "lint", "SKILL.md"), []byte("new\n"), 0o644))
	}},
	{"edit SKILL.md", func(t *testing.T, root string) {
		check(t, os.WriteFile(filepath.Join(root, "deploy", "SKILL.md"), []byte("v1, longer\n"), 0o644))
	}},
	{"rename skill folder", func(t *testing.T, root string) {
		check(t, os.Rename(filepath.Join(root, "build"), filepath.Join(root, "make")))
	}},
	{"delete skill folder", func(t *testing.T, root string) {
		check(t, os.RemoveAll(filepath.Join(root, "build")))
	}},
	{"add deep file", func(t *testing.T, root string) {
		check(t, os.WriteFile(filepath.Join(root, "deploy", "references", "deep", "more.md"), []byte("more\n"), 0o644))
	}},
	{"edit deep file", func(t *testing.T, root string) {
		check(t, os.WriteFile(filepath.Join(root, "deploy", "references", "deep", "notes.md"), []byte("v1 of the notes, longer\n"), 0o644))
	}},
	{"rename deep file", func(t *testing.T, root string) {
		d := filepath.Join(root, "deploy", "references", "deep")
		check(t, os.Rename(filepath.Join(d, "notes.md"), filepath.Join(d, "renamed.md")))
	}},
	{"delete deep file", func(t *testing.T, root string) {
		check(t, os.Remove(filepath.Join(root, "deploy", "references", "deep", "notes.md")))
	}},
	// A server pinned to a scan refuses reads of a file whose change
	// time or readability moved, until it scans again.
	{"chmod a script", func(t *testing.T, root string) {
		check(t, os.Chmod(filepath.Join(root, "build", "scripts", "run.sh"), 0o755))
	}},
	{"touch a file", func(t *testing.T, root string) {
		later := time.Now().Add(time.Hour)
		check(t, os.Chtimes(filepath.Join(root, "deploy", "references", "deep", "notes.md"), later, later))
	}},
	{"save by rename from a hidden temp file", func(t *testing.T, root string) {
		tmp := filepath.Join(root, "deploy", ".SKILL.md.swp")
		check(t, os.WriteFile(tmp, []byte("saved by rename\n"), 0o644))
		check(t, os.Rename(tmp, filepath.Join(root, "deploy", "SKILL.md")))
	}},
}

// treeModes runs a tree test with the operating system's events, with no
// watcher at all, and with too many directories to watch.
var treeModes = []struct {
	name  string
	setup func(t *testing.T, o *Options)
}{
	{"events", func(*testing.T, *Options) {}},
	{"polling, no watcher", func(t *testing.T, _ *Options) { noNotify(t) }},
	{"polling, past MaxDirs", func(_ *testing.T, o *Options) { o.MaxDirs = 2 }},
}

// TestTreeChangesSignal: every change of treeChanges signals, in every
// mode, and the Watcher still signals the next change after it.
func TestTreeChangesSignal(t *testing.T) {
	for _, mode := range treeModes {
		for _, c := range treeChanges {
			t.Run(mode.name+"/"+c.name, func(t *testing.T) {
				opts := testOpts(nil)
				mode.setup(t, opts)
				root := skillTree(t)
				w := newTreeWatcher(t, []string{root}, opts)
				c.change(t, root)
				waitSignal(t, w, c.name)
				// Still watching afterwards (a renamed or deleted folder
				// did not end it).
				check(t, os.WriteFile(filepath.Join(root, "after.md"), []byte("after\n"), 0o644))
				waitSignal(t, w, "a change after "+c.name)
			})
		}
	}
}

// TestTreeNewDirsWatched: a folder created after the start, with folders
// inside it, is watched to its bottom: a file later written there signals.
// Only a watch added for the new folder can see it.
func TestTreeNewDirsWatched(t *testing.T) {
	root := skillTree(t)
	var logs lockedBuffer
	w := newTreeWatcher(t, []string{root}, testOpts(slog.New(slog.NewTextHandler(&logs, nil))))
	deep := filepath.Join(root, "new-skill", "assets", "fonts", "x")
	check(t, os.MkdirAll(deep, 0o755))
	waitSignal(t, w, "folders created")
	// Let the burst settle, so the next signal is the file's.
	drain(w, 5*testOpts(nil).Debounce)
	check(t, os.WriteFile(filepath.Join(deep, "font.ttf"), []byte("font"), 0o644))
	waitSignal(t, w, "file written in a new deep folder")
	// A folder renamed in from outside is watched too.
	outside := filepath.Join(t.TempDir(), "moved", "refs")
	check(t, os.MkdirAll(outside, 0o755))
	check(t, os.Rename(filepath.Dir(outside), filepath.Join(root, "moved")))
	waitSignal(t, w, "folder renamed in")
	drain(w, 5*testOpts(nil).Debounce)
	check(t, os.WriteFile(filepath.Join(root, "moved", "refs", "a.md"), []byte("a"), 0o644))
	waitSignal(t, w, "file written in a folder renamed in")
	if strings.Contains(logs.String(), "polling") {
		t.Fatalf("fell back to polling: %s", logs.String())
	}
}

// drain takes the signals that come within d.
func drain(w *Watcher, d time.Duration) {
	for end := time.After(d); ; {
		select {
		case <-w.Changes():
		case <-end:
			return
		}
	}
}

// TestTreeHiddenIgnored: changes to hidden entries (.git, editor swap
// files) send nothing; a visible change then signals.
func TestTreeHiddenIgnored(t *testing.T) {
	root := skillTree(t)
	check(t, os.MkdirAll(filepath.Join(root, ".git", "objects"), 0o755))
	w := newTreeWatcher(t, []string{root}, testOpts(nil))
	for i := range 20 {
		check(t, os.WriteFile(filepath.Join(root, ".git", "objects", "x"), []byte(strings.Repeat("x", i)), 0o644))
		check(t, os.WriteFile(filepath.Join(root, "deploy", ".SKILL.md.swp"), []byte(strings.Repeat("x", i)), 0o644))
	}
	select {
	case <-w.Changes():
		t.Fatal("changes to hidden entries sent a signal")
	case <-time.After(5 * testOpts(nil).Debounce):
	}
	check(t, os.WriteFile(filepath.Join(root, "deploy", "SKILL.md"), []byte("v1, visible\n"), 0o644))
	waitSignal(t, w, "a visible change")
}

// TestTreeBurstCoalesced: creating 30 skill folders at once sends a few
// signals, not one per event.
func TestTreeBurstCoalesced(t *testing.T) {
	root := skillTree(t)
	opts := testOpts(nil)
	opts.Debounce = 100 * time.Millisecond
	w := newTreeWatcher(t, []string{root}, opts)
	n := countBurst(t, w, opts.Debounce, func() {
		for i := range 30 {
			d := filepath.Join(root, fmt.Sprintf("skill-%d", i), "references")
			check(t, os.MkdirAll(d, 0o755))
			check(t, os.WriteFile(filepath.Join(d, "..", "SKILL.md"), []byte("x\n"), 0o644))
			check(t, os.WriteFile(filepath.Join(d, "r.md"), []byte("r\n"), 0o644))
		}
	})
	if n > 10 {
		t.Fatalf("%d signals for one burst of 150 events, want a few", n)
	}
}

// TestTreePollingLoggedOnce: past MaxDirs the Watcher says so once, and
// why, and polls every change.
func TestTreePollingLoggedOnce(t *testing.T) {
	root := skillTree(t)
	var logs lockedBuffer
	opts := testOpts(slog.New(slog.NewTextHandler(&logs, nil)))
	opts.MaxDirs = 3
	w := newTreeWatcher(t, []string{root}, opts)
	for i := 1; i <= 3; i++ {
		check(t, os.WriteFile(filepath.Join(root, "build", "scripts", "run.sh"), []byte(strings.Repeat("v", i+1)+"\n"), 0o644))
		waitSignal(t, w, "a change while polling")
	}
	check(t, w.Close())
	if got := logs.String(); strings.Count(got, "polling them instead") != 1 || !strings.Contains(got, "MaxDirs") {
		t.Fatalf("log = %q; want one line saying it polls, and why", got)
	}
}

// TestTreeRootRemoved: a root that goes away signals and is polled; when it
// comes back it signals again and is watched again.
func TestTreeRootRemoved(t *testing.T) {
	root := skillTree(t)
	var logs lockedBuffer
	w := newTreeWatcher(t, []string{root}, testOpts(slog.New(slog.NewTextHandler(&logs, nil))))
	check(t, os.RemoveAll(root))
	waitSignal(t, w, "root removed")
	check(t, os.MkdirAll(filepath.Join(root, "back"), 0o755))
	check(t, os.WriteFile(filepath.Join(root, "back", "SKILL.md"), []byte("back\n"), 0o644))
	waitSignal(t, w, "root back")
	for end := time.Now().Add(patience); !strings.Contains(logs.String(), "watching the skills folders for changes again"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("never watched again; log: %s", logs.String())
		}
	}
	check(t, os.WriteFile(filepath.Join(root, "back", "SKILL.md"), []byte("back, edited\n"), 0o644))
	waitSignal(t, w, "a change once watched again")
}

// TestTreeSymlinkedSkill: a skill linked in from elsewhere (how people
// install skills) is watched through its link.
func TestTreeSymlinkedSkill(t *testing.T) {
	root := skillTree(t)
	src := filepath.Join(t.TempDir(), "src", "linked")
	check(t, os.MkdirAll(filepath.Join(src, "references"), 0o755))
	check(t, os.WriteFile(filepath.Join(src, "SKILL.md"), []byte("v0\n"), 0o644))
	check(t, os.Symlink(src, filepath.Join(root, "linked")))
	w := newTreeWatcher(t, []string{root}, testOpts(nil))
	check(t, os.WriteFile(filepath.Join(src, "references", "r.md"), []byte("r\n"), 0o644))
	waitSignal(t, w, "file written in a linked skill")
}

// TestTreeClose: Close ends the goroutine and closes Changes, in every
// mode, and is idempotent.
func TestTreeClose(t *testing.T) {
	for _, mode := range treeModes {
		t.Run(mode.name, func(t *testing.T) {
			opts := testOpts(nil)
			mode.setup(t, opts)
			w, err := NewTree([]string{skillTree(t)}, opts)
			check(t, err)
			checkClosed(t, w)
		})
	}
}

// TestTreeRootMissing: a root that does not exist yet is polled for; its
// creation signals, and it is watched once there.
func TestTreeRootMissing(t *testing.T) {
	root := filepath.Join(t.TempDir(), "later")
	var logs lockedBuffer
	w := newTreeWatcher(t, []string{root}, testOpts(slog.New(slog.NewTextHandler(&logs, nil))))
	check(t, os.MkdirAll(filepath.Join(root, "skill"), 0o755))
	waitSignal(t, w, "root created")
	for end := time.Now().Add(patience); !strings.Contains(logs.String(), "watching the skills folders for changes again"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("never watched; log: %s", logs.String())
		}
	}
	check(t, os.WriteFile(filepath.Join(root, "skill", "SKILL.md"), []byte("v0\n"), 0o644))
	waitSignal(t, w, "a change once watched")
}

// TestTreeSymlinkLoop: a link back up the tree does not make the walk run
// away: the watcher starts, watches, and still signals.
func TestTreeSymlinkLoop(t *testing.T) {
	root := skillTree(t)
	check(t, os.Symlink("..", filepath.Join(root, "deploy", "references", "up")))
	check(t, os.Symlink(root, filepath.Join(root, "build", "root")))
	for _, mode := range treeModes {
		t.Run(mode.name, func(t *testing.T) {
			opts := testOpts(nil)
			mode.setup(t, opts)
			w := newTreeWatcher(t, []string{root}, opts)
			check(t, os.WriteFile(filepath.Join(root, "deploy", "references", "deep", "notes.md"), []byte("v1, through a loop\n"), 0o644))
			waitSignal(t, w, "a change in a tree with link loops")
		})
	}
}
