package watch

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// patience is how long a test waits for a signal that must come: the
// machine may be loaded, and nothing here asserts how fast it comes.
const patience = 5 * time.Second

// testOpts are short enough to keep the tests quick; only their order
// matters (a quick save is shorter than Debounce, Poll shorter than both).
func testOpts(log *slog.Logger) *Options {
	return &Options{Debounce: 30 * time.Millisecond, MaxWait: time.Second, Poll: 10 * time.Millisecond, Logger: log}
}

// saves are the ways editors and tools write a file. Each new text is
// longer than the last, so polling sees the change in the size whatever
// the timestamp granularity.
var saves = []struct {
	name string
	save func(t *testing.T, path, text string)
}{
	{"truncate then write in pieces", func(t *testing.T, path, text string) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC|os.O_CREATE, 0o644)
		check(t, err)
		defer f.Close()
		for i := 0; i < len(text); i += len(text)/4 + 1 {
			_, err := f.WriteString(text[i:min(i+len(text)/4+1, len(text))])
			check(t, err)
			time.Sleep(2 * time.Millisecond)
		}
	}},
	{"overwrite in place", func(t *testing.T, path, text string) {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		check(t, err)
		defer f.Close()
		_, err = f.WriteAt([]byte(text), 0)
		check(t, err)
		check(t, f.Truncate(int64(len(text))))
	}},
	{"write temp then rename", func(t *testing.T, path, text string) {
		tmp := filepath.Join(filepath.Dir(path), ".agent.3md.swp")
		check(t, os.WriteFile(tmp, []byte(text), 0o644))
		check(t, os.Rename(tmp, path))
	}},
	{"unlink then recreate", func(t *testing.T, path, text string) {
		check(t, os.Remove(path))
		check(t, os.WriteFile(path, []byte(text), 0o644))
	}},
	{"touch", func(t *testing.T, path, text string) {
		when := time.Date(2001, 2, 3, 4, 5, len(text), 0, time.UTC)
		check(t, os.Chtimes(path, when, when))
	}},
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// modes runs a test with the operating system's file events and with the
// polling fall-back (as when inotify's limits are reached).
var modes = []struct {
	name  string
	setup func(t *testing.T)
}{
	{"events", func(*testing.T) {}},
	{"polling", noNotify},
}

// noNotify makes the operating system watcher unavailable for one test.
func noNotify(t *testing.T) {
	newNotify = func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files (test)") }
	t.Cleanup(func() { newNotify = fsnotify.NewWatcher })
}

func newWatcher(t *testing.T, path string, opts *Options) *Watcher {
	t.Helper()
	w, err := New(path, opts)
	check(t, err)
	t.Cleanup(func() { w.Close() })
	return w
}

// waitSignal fails the test unless a signal comes within patience.
func waitSignal(t *testing.T, w *Watcher, what string) {
	t.Helper()
	select {
	case _, ok := <-w.Changes():
		if !ok {
			t.Fatalf("%s: Changes was closed", what)
		}
	case <-time.After(patience):
		t.Fatalf("%s: no signal within %v", what, patience)
	}
}

// TestEverySaveSignals: each way of saving, with events and with polling,
// is followed by a signal.
func TestEverySaveSignals(t *testing.T) {
	for _, mode := range modes {
		for _, s := range saves {
			t.Run(mode.name+"/"+s.name, func(t *testing.T) {
				mode.setup(t)
				path := filepath.Join(t.TempDir(), "agent.3md")
				check(t, os.WriteFile(path, []byte("version 0\n"), 0o644))
				var logs lockedBuffer
				w := newWatcher(t, path, testOpts(slog.New(slog.NewTextHandler(&logs, nil))))
				for i := 1; i <= 2; i++ { // the watch survives the first save
					s.save(t, path, "version "+strings.Repeat("+", i)+"\n")
					waitSignal(t, w, "save "+string(rune('0'+i)))
				}
				check(t, w.Close())
				if polled := strings.Contains(logs.String(), "polling it instead"); polled != (mode.name == "polling") {
					t.Errorf("fell back to polling: %v, want %v; log: %s", polled, !polled, logs.String())
				}
			})
		}
	}
}

// TestMissingFile: a file that does not exist yet is watched for, and its
// creation signals; so does its deletion and its return.
func TestMissingFile(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			mode.setup(t)
			path := filepath.Join(t.TempDir(), "agent.3md")
			w := newWatcher(t, path, testOpts(nil))
			check(t, os.WriteFile(path, []byte("born\n"), 0o644))
			waitSignal(t, w, "created")
			check(t, os.Remove(path))
			waitSignal(t, w, "deleted")
			check(t, os.WriteFile(path, []byte("born again\n"), 0o644))
			waitSignal(t, w, "created again")
		})
	}
}

// TestOtherFilesIgnored: changes to other files in the directory send
// nothing; the file's own change then sends a signal.
func TestOtherFilesIgnored(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.3md")
	check(t, os.WriteFile(path, []byte("v0\n"), 0o644))
	w := newWatcher(t, path, testOpts(nil))
	for i := range 20 {
		check(t, os.WriteFile(filepath.Join(dir, "other.txt"), []byte(strings.Repeat("x", i)), 0o644))
		check(t, os.Rename(filepath.Join(dir, "other.txt"), filepath.Join(dir, "agent.3md~")))
	}
	select {
	case <-w.Changes():
		t.Fatal("changes to other files in the directory sent a signal")
	case <-time.After(5 * testOpts(nil).Debounce):
	}
	check(t, os.WriteFile(path, []byte("v1\n"), 0o644))
	waitSignal(t, w, "the file's own change")
}

// TestBurstCoalesced: 50 quick writes send a few signals, not 50. The
// signals are counted as they come, so the one-value buffer of Changes
// does not hide any.
func TestBurstCoalesced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.3md")
	check(t, os.WriteFile(path, nil, 0o644))
	opts := testOpts(nil)
	opts.Debounce = 100 * time.Millisecond
	w := newWatcher(t, path, opts)
	n := countBurst(t, w, opts.Debounce, func() {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		check(t, err)
		// Each write is well within Debounce of the last, but far enough
		// apart that a watcher without debounce would signal each one.
		for i := range 50 {
			_, err := f.WriteString(strings.Repeat("x", i) + "\n")
			check(t, err)
			time.Sleep(2 * time.Millisecond)
		}
		check(t, f.Close())
	})
	if n > 10 {
		t.Fatalf("%d signals for one burst of 50 writes, want a few", n)
	}
}

// countBurst runs burst while counting w's signals as they come (so the
// one-value buffer of Changes hides none), waits for the first, lets late
// ones arrive for five debounce periods, closes w and returns the count.
func countBurst(t *testing.T, w *Watcher, debounce time.Duration, burst func()) int32 {
	t.Helper()
	var signals atomic.Int32
	counted := make(chan struct{})
	go func() {
		defer close(counted)
		for range w.Changes() {
			signals.Add(1)
		}
	}()
	burst()
	for end := time.Now().Add(patience); signals.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no signal within %v of the burst", patience)
		}
	}
	time.Sleep(5 * debounce) // let any late signal come, to be counted
	check(t, w.Close())
	<-counted
	return signals.Load()
}

// TestMaxWait: a file written without pause still signals.
func TestMaxWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.3md")
	check(t, os.WriteFile(path, nil, 0o644))
	opts := testOpts(nil)
	opts.Debounce, opts.MaxWait = 300*time.Millisecond, 400*time.Millisecond
	w := newWatcher(t, path, opts)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	check(t, err)
	defer f.Close()
	deadline := time.After(patience)
	for {
		select {
		case <-w.Changes():
			return
		case <-deadline:
			t.Fatalf("no signal within %v while the file was written every 5 ms", patience)
		case <-time.After(5 * time.Millisecond):
			_, err := f.WriteString("more\n")
			check(t, err)
		}
	}
}

// lockedBuffer is a log destination the watcher goroutine writes while
// the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPollingLoggedOnce: without file events the Watcher says so once, and
// still signals every change.
func TestPollingLoggedOnce(t *testing.T) {
	noNotify(t)
	var logs lockedBuffer
	path := filepath.Join(t.TempDir(), "agent.3md")
	check(t, os.WriteFile(path, []byte("v\n"), 0o644))
	w := newWatcher(t, path, testOpts(slog.New(slog.NewTextHandler(&logs, nil))))
	for i := 1; i <= 3; i++ {
		check(t, os.WriteFile(path, []byte(strings.Repeat("v", i+1)+"\n"), 0o644))
		waitSignal(t, w, "a change while polling")
	}
	check(t, w.Close())
	if got := logs.String(); strings.Count(got, "polling it instead") != 1 || !strings.Contains(got, "too many open files") {
		t.Fatalf("log = %q; want one line saying it polls, and why", got)
	}
}

// TestDirectoryRemoved: when the directory goes away the Watcher polls, and
// when it comes back with the file, signals and watches again.
func TestDirectoryRemoved(t *testing.T) {
	var logs lockedBuffer
	dir := filepath.Join(t.TempDir(), "agents")
	path := filepath.Join(dir, "agent.3md")
	check(t, os.Mkdir(dir, 0o755))
	check(t, os.WriteFile(path, []byte("v0\n"), 0o644))
	w := newWatcher(t, path, testOpts(slog.New(slog.NewTextHandler(&logs, nil))))
	check(t, os.RemoveAll(dir))
	waitSignal(t, w, "directory removed")
	check(t, os.Mkdir(dir, 0o755))
	check(t, os.WriteFile(path, []byte("v1, back\n"), 0o644))
	waitSignal(t, w, "directory and file back")
	for end := time.Now().Add(patience); !strings.Contains(logs.String(), "watching the file for changes again"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("never watched again; log: %s", logs.String())
		}
	}
	if !strings.Contains(logs.String(), "was removed or renamed") {
		t.Errorf("log does not say the directory went: %s", logs.String())
	}
	check(t, os.WriteFile(path, []byte("v2, watched again\n"), 0o644))
	waitSignal(t, w, "a change once watched again")
}

// TestSymlink: a path that is a symlink signals when its target is saved
// by rename in the target's own directory.
func TestSymlink(t *testing.T) {
	target := filepath.Join(t.TempDir(), "real.3md")
	check(t, os.WriteFile(target, []byte("v0\n"), 0o644))
	link := filepath.Join(t.TempDir(), "agent.3md")
	check(t, os.Symlink(target, link))
	var logs lockedBuffer
	w := newWatcher(t, link, testOpts(slog.New(slog.NewTextHandler(&logs, nil))))
	saves[2].save(t, target, "v1, saved by rename\n")
	waitSignal(t, w, "target saved")

	// The link is pointed elsewhere (by rename, as stow and deploys do):
	// that is a change, and the new target is watched from then on.
	other := filepath.Join(t.TempDir(), "other.3md")
	check(t, os.WriteFile(other, []byte("other v0\n"), 0o644))
	tmp := link + ".new"
	check(t, os.Symlink(other, tmp))
	check(t, os.Rename(tmp, link))
	waitSignal(t, w, "link retargeted")
	saves[2].save(t, other, "other v1, saved by rename\n")
	waitSignal(t, w, "new target saved")
	check(t, w.Close())
	if strings.Contains(logs.String(), "polling") {
		t.Fatalf("fell back to polling: %s", logs.String())
	}
}

// checkClosed closes w and checks what Close promises: its goroutine
// has ended when Close returns, Changes is closed (within patience), and
// a second Close is harmless.
func checkClosed(t *testing.T, w *Watcher) {
	t.Helper()
	check(t, w.Close())
	select {
	case <-w.exited:
	default:
		t.Fatal("Close returned before the goroutine ended")
	}
	select {
	case _, ok := <-w.Changes():
		if ok {
			t.Fatal("Changes delivered a value after Close, want it closed")
		}
	case <-time.After(patience):
		t.Fatal("Changes still open after Close")
	}
	check(t, w.Close())
}

// TestClose: Close ends the goroutine (which closes Changes), in both
// modes, and is idempotent.
func TestClose(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			mode.setup(t)
			path := filepath.Join(t.TempDir(), "agent.3md")
			w, err := New(path, testOpts(nil))
			check(t, err)
			checkClosed(t, w)
		})
	}
}

// TestDebounce checks when a burst's signal is due, on a made-up clock.
func TestDebounce(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	tests := []struct {
		name    string
		touches []int // times of changes, in ms
		fireAt  []int // after which touch (index) the signal fires; -1 none
		want    []int // due time after each touch, ms
	}{
		{name: "one change", touches: []int{0}, want: []int{150}},
		{name: "quiet restarts", touches: []int{0, 100, 200}, want: []int{150, 250, 350}},
		{name: "capped by max wait", touches: []int{0, 100, 900, 1000, 1950}, want: []int{150, 250, 1050, 1150, 2000}},
		{name: "a fire starts a new burst", touches: []int{0, 1900, 2100}, fireAt: []int{1}, want: []int{150, 2000, 2250}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := debounce{quiet: ms(150), most: ms(2000)}
			base := time.Unix(1000, 0)
			for i, at := range tt.touches {
				due := d.touch(base.Add(ms(at)))
				if got := due.Sub(base); got != ms(tt.want[i]) {
					t.Errorf("touch %d at %d ms: due at %v, want %d ms", i, at, got, tt.want[i])
				}
				for _, f := range tt.fireAt {
					if f == i {
						d.fire()
					}
				}
			}
		})
	}
}
