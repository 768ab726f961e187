package watch

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Defaults for Options.
const (
	// DefaultDebounce is how long the file must be quiet before a signal:
	// longer than the pauses between the writes of one save, short enough
	// that a reload feels immediate.
	DefaultDebounce = 150 * time.Millisecond
	// DefaultMaxWait bounds how long a file that never goes quiet waits
	// for its signal.
	DefaultMaxWait = 2 * time.Second
	// DefaultPoll is how often the file is stat'ed when it cannot be
	// watched.
	DefaultPoll = time.Second
	// DefaultMaxDirs is how many directories NewTree watches through the
	// operating system before it polls the tree instead: well under the
	// usual per-user inotify watch limit (8192 on older kernels), so one
	// server does not starve the others.
	DefaultMaxDirs = 8192
)

// Options configures New. A nil *Options means defaults.
type Options struct {
	// Debounce is how long the file must be quiet before Changes gets a
	// signal (default DefaultDebounce).
	Debounce time.Duration
	// MaxWait is the longest a signal waits after the first change of a
	// burst, however often the file keeps changing (default
	// DefaultMaxWait). It is never shorter than Debounce.
	MaxWait time.Duration
	// Poll is how often the file's stat is compared when it cannot be
	// watched through the operating system (default DefaultPoll).
	Poll time.Duration
	// Logger receives the fall-backs to polling and returns from it
	// (default slog.Default()).
	Logger *slog.Logger
	// MaxDirs bounds the directories a NewTree Watcher watches through
	// the operating system; past it the tree is polled (default
	// DefaultMaxDirs). New ignores it.
	MaxDirs int
}

// Watcher watches one file (New) or the directory trees of skills folders
// (NewTree). Its methods are safe for concurrent use.
type Watcher struct {
	tree *tree // set by NewTree; owned by runTree

	opts    Options
	log     *slog.Logger
	path    string
	changes chan struct{}
	done    chan struct{} // closed by Close
	exited  chan struct{} // closed when run returns
	once    sync.Once

	// Owned by run once New returns.
	fw       *fsnotify.Watcher // nil while polling
	ticker   *time.Ticker      // non-nil while polling
	names    map[string]bool   // full names of the file (and symlink target)
	dirs     map[string]bool   // the directories that hold them
	seen     stat              // the file as last looked at
	closeErr error             // from closing fw, read by Close after exited
}

// newNotify makes the operating system watcher; tests replace it to
// simulate a system without one.
var newNotify = fsnotify.NewWatcher

// New starts watching the file at path, which need not exist yet; its
// directory need not either (the Watcher then polls until it does). It
// fails only when path cannot be made absolute. Close stops it.
func New(path string, opts *Options) (*Watcher, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", path, err)
	}
	w := &Watcher{
		path:    abs,
		changes: make(chan struct{}, 1),
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	w.setOptions(opts)
	// Watch first, stat second: a change in between is then both seen by
	// the stat and reported as an event, never missed.
	werr := w.watch()
	w.seen = statOf(w.path)
	go w.run(werr)
	return w, nil
}

// setOptions fills w.opts and w.log from opts and the defaults.
func (w *Watcher) setOptions(opts *Options) {
	if opts != nil {
		w.opts = *opts
	}
	w.opts.Debounce = orDefault(w.opts.Debounce, DefaultDebounce)
	w.opts.MaxWait = max(orDefault(w.opts.MaxWait, DefaultMaxWait), w.opts.Debounce)
	w.opts.Poll = orDefault(w.opts.Poll, DefaultPoll)
	if w.opts.MaxDirs <= 0 {
		w.opts.MaxDirs = DefaultMaxDirs
	}
	w.log = w.opts.Logger
	if w.log == nil {
		w.log = slog.Default()
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Changes delivers one value after each burst of changes to the file has
// settled. It holds at most one pending value: signals that the receiver
// has not taken yet merge into one. It is closed once the Watcher stops.
func (w *Watcher) Changes() <-chan struct{} { return w.changes }

// Close stops the Watcher and waits for its goroutine to end. It is
// idempotent.
func (w *Watcher) Close() error {
	w.once.Do(func() { close(w.done) })
	<-w.exited
	return w.closeErr
}

// watch sets up the operating system watcher on the file's directory and,
// when the path is a symlink, on its target's directory.
func (w *Watcher) watch() error {
	w.names, w.dirs = map[string]bool{w.path: true}, map[string]bool{filepath.Dir(w.path): true}
	if name, dir, ok := target(w.path); ok {
		w.names[name], w.dirs[dir] = true, true
	}
	fw, err := newNotify()
	if err != nil {
		return err
	}
	for dir := range w.dirs {
		if err := fw.Add(dir); err != nil {
			fw.Close()
			return err
		}
	}
	w.fw = fw
	return nil
}

// follow starts watching the target of the path when a new symlink was
// put in its place. Names watched before stay watched: an extra signal
// only makes the reader look again.
func (w *Watcher) follow() {
	name, dir, ok := target(w.path)
	if !ok || w.names[name] {
		return
	}
	w.names[name] = true
	if !w.dirs[dir] {
		w.dirs[dir] = true
		if err := w.fw.Add(dir); err != nil {
			w.startPolling(fmt.Errorf("watching %s: %w", dir, err))
		}
	}
}

// target returns the full name and directory a symlink at path leads to;
// false when path is no symlink or leads nowhere.
func target(path string) (name, dir string, ok bool) {
	t, err := filepath.EvalSymlinks(path)
	if err != nil || t == path {
		return "", "", false
	}
	if t, err = filepath.Abs(t); err != nil {
		return "", "", false
	}
	return t, filepath.Dir(t), true
}

// run is the Watcher's goroutine: it turns events (or, while polling, stat
// changes) into debounced signals until Close.
func (w *Watcher) run(werr error) {
	defer close(w.exited)
	defer close(w.changes)
	defer w.stopNotify()
	defer w.stopPolling()
	if werr != nil {
		w.startPolling(werr)
	}
	w.loop(modeHandlers{
		sources: func() (<-chan fsnotify.Event, <-chan error, <-chan time.Time) {
			return sourcesOf(w.fw, w.ticker)
		},
		onEvent: w.onEvent, onError: w.onError, onTick: w.onTick,
	})
}

// modeHandlers are one kind of Watcher's reactions (one file, or trees);
// loop, shared, turns them into debounced signals.
type modeHandlers struct {
	// sources are the channels to wait on now (nil: not in use).
	sources func() (<-chan fsnotify.Event, <-chan error, <-chan time.Time)
	// Each reports whether what is watched may have changed.
	onEvent func(ev fsnotify.Event, ok bool) bool
	onError func(err error, ok bool) bool
	onTick  func() bool
}

// sourcesOf are the channels of an fsnotify watcher and a poll ticker,
// either of which may be nil.
func sourcesOf(fw *fsnotify.Watcher, ticker *time.Ticker) (<-chan fsnotify.Event, <-chan error, <-chan time.Time) {
	var events <-chan fsnotify.Event
	var errs <-chan error
	if fw != nil {
		events, errs = fw.Events, fw.Errors
	}
	var tick <-chan time.Time
	if ticker != nil {
		tick = ticker.C
	}
	return events, errs, tick
}

// loop waits on h's sources until Close and signals each change once it
// has been quiet for Options.Debounce (or waited Options.MaxWait).
func (w *Watcher) loop(h modeHandlers) {
	deb := debounce{quiet: w.opts.Debounce, most: w.opts.MaxWait}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		events, errs, tick := h.sources()
		changed := false
		select {
		case <-w.done:
			return
		case ev, ok := <-events:
			changed = h.onEvent(ev, ok)
		case err, ok := <-errs:
			changed = h.onError(err, ok)
		case <-tick:
			changed = h.onTick()
		case <-timer.C:
			deb.fire()
			select {
			case w.changes <- struct{}{}:
			default: // a signal is already waiting: it covers this one
			}
		}
		if changed {
			timer.Reset(time.Until(deb.touch(time.Now())))
		}
	}
}

// onEvent handles one event (ok false: the events channel closed) and
// reports whether the file may have changed.
func (w *Watcher) onEvent(ev fsnotify.Event, ok bool) bool {
	switch {
	case !ok:
		w.startPolling(errors.New("the watcher stopped delivering events"))
		return true
	case w.dirs[ev.Name] && ev.Has(fsnotify.Remove|fsnotify.Rename):
		w.startPolling(fmt.Errorf("directory %s was removed or renamed", ev.Name))
		return true
	case w.names[ev.Name]:
		if ev.Name == w.path && ev.Has(fsnotify.Create|fsnotify.Rename) {
			w.follow()
		}
		return w.relevant(ev)
	}
	return false // another file in the directory
}

// onError handles an error from the watcher and reports whether the file
// may have changed unseen.
func (w *Watcher) onError(err error, ok bool) bool {
	switch {
	case !ok:
		w.startPolling(errors.New("the watcher stopped delivering errors"))
		return true
	case errors.Is(err, fsnotify.ErrEventOverflow):
		return true // events were lost: look again
	}
	w.log.Warn("error watching the file", "file", w.path, "error", err.Error())
	return false
}

// onTick polls the file, tries to watch it through the operating system
// again, and reports whether the file changed.
func (w *Watcher) onTick() bool {
	changed := w.pollOnce()
	if w.watch() != nil {
		return changed
	}
	w.stopPolling()
	w.log.Info("watching the file for changes again", "file", w.path)
	// It may have changed while the watch was being set up.
	return w.pollOnce() || changed
}

// startPolling drops the operating system watcher, says why once, and
// polls the file from now on.
func (w *Watcher) startPolling(why error) {
	w.stopNotify()
	if w.ticker != nil {
		return
	}
	w.log.Warn("cannot watch the file for changes; polling it instead", "file", w.path, "every", w.opts.Poll, "reason", why.Error())
	w.ticker = time.NewTicker(w.opts.Poll)
}

func (w *Watcher) stopPolling() {
	if w.ticker != nil {
		w.ticker.Stop()
		w.ticker = nil
	}
}

// relevant reports whether an event for the file may mean new content. A
// chmod-only event (a touch, a mode change, a virus scanner) counts only if
// the file's size, time or identity moved.
func (w *Watcher) relevant(ev fsnotify.Event) bool {
	moved := w.pollOnce()
	return moved || ev.Has(fsnotify.Create|fsnotify.Write|fsnotify.Remove|fsnotify.Rename)
}

// pollOnce stats the file and reports whether it moved since last seen.
func (w *Watcher) pollOnce() bool {
	now := statOf(w.path)
	moved := !now.same(w.seen)
	w.seen = now
	return moved
}

// stopNotify closes the operating system watcher, if any.
func (w *Watcher) stopNotify() {
	if w.fw != nil {
		if err := w.fw.Close(); err != nil && w.closeErr == nil {
			w.closeErr = err
		}
		w.fw = nil
	}
}

// stat is what polling compares: whether the file exists, which file it
// is, and its size and modification time. The change time is left out, so
// a chmod alone is no change.
type stat struct {
	file    os.FileInfo // nil when missing
	size    int64
	modTime int64
}

func statOf(path string) stat {
	fi, err := os.Stat(path)
	if err != nil {
		return stat{}
	}
	return stat{file: fi, size: fi.Size(), modTime: fi.ModTime().UnixNano()}
}

func (s stat) same(o stat) bool {
	if s.file == nil || o.file == nil {
		return s.file == nil && o.file == nil
	}
	return os.SameFile(s.file, o.file) && s.size == o.size && s.modTime == o.modTime
}

// debounce decides when a burst of changes has settled: quiet after the
// last change, but never more than most after the first.
type debounce struct {
	quiet, most time.Duration
	pending     bool
	first       time.Time
}

// touch records a change at now and returns when the signal is due.
func (d *debounce) touch(now time.Time) time.Time {
	if !d.pending {
		d.pending, d.first = true, now
	}
	due := now.Add(d.quiet)
	if limit := d.first.Add(d.most); limit.Before(due) {
		due = limit
	}
	return due
}

// fire ends the burst: the next change starts a new one.
func (d *debounce) fire() { d.pending = false }
