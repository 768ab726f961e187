package watch

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// maxTreeDepth bounds how deep below a root directories are watched or
// polled: a skills folder is searched 4 levels deep and a skill's own
// files 16 below that (docs/skill-folders.md §1, §7); deeper is no skill's.
const maxTreeDepth = 24

// rewatchEvery is how many polls pass between attempts to watch a polled
// tree through the operating system again. A tree is many directories: an
// attempt that fails for want of inotify watches costs a walk and as many
// system calls, so it is not made on every poll.
const rewatchEvery = 10

// errTooManyDirs stops a watch set-up past Options.MaxDirs.
var errTooManyDirs = errors.New("too many directories")

// tree is the state of a NewTree Watcher, owned by its goroutine.
type tree struct {
	roots  []string
	fw     *fsnotify.Watcher // nil while polling
	dirs   map[string]bool   // directories watched, as added
	ticker *time.Ticker      // non-nil while polling
	polls  int               // polls since polling began
	sig    uint64            // the tree as last polled
}

// NewTree starts watching the directory trees under roots, as a server of
// skills folders needs (docs/skill-folders.md §11): a signal on Changes
// follows any file or directory being created, written, renamed or
// removed anywhere below a root, debounced and coalesced as for New.
// Entries whose name starts with "." are ignored, as package skillsdir ignores
// them, and so are mode-only changes. Operating system watches are not
// recursive, so one is added for each directory as it appears and dropped
// as it goes; past Options.MaxDirs directories, when the system runs out
// of watches, or when a root itself goes, the Watcher logs once and polls
// a signature of the trees (names, sizes, modification times) every
// Options.Poll instead, trying now and then to watch again. NewTree fails
// only when a root cannot be made absolute; a root that does not exist
// yet is polled for until it does. Close stops it.
func NewTree(roots []string, opts *Options) (*Watcher, error) {
	t := &tree{}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("watch %s: %w", r, err)
		}
		t.roots = append(t.roots, abs)
	}
	w := &Watcher{
		tree:    t,
		changes: make(chan struct{}, 1),
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	w.setOptions(opts)
	// Watch (or take the polling signature) before returning: a change
	// made once NewTree has returned is then never missed.
	if err := w.watchTree(); err != nil {
		w.startTreePolling(err)
	}
	go w.runTree()
	return w, nil
}

// watchTree sets up operating system watches on every directory under the
// roots.
func (w *Watcher) watchTree() error {
	t := w.tree
	fw, err := newNotify()
	if err != nil {
		return err
	}
	t.fw, t.dirs = fw, map[string]bool{}
	for _, r := range t.roots {
		// A missing root has no directory to watch, and its parent is not
		// watched: only polling sees it appear.
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			w.stopTreeNotify()
			return fmt.Errorf("folder %s is missing or not a folder", r)
		}
		if err := w.addTree(r); err != nil {
			w.stopTreeNotify()
			return err
		}
	}
	return nil
}

// addTree watches dir and every directory below it that is not hidden.
// Directory symlinks are followed, as package skillsdir follows a user's linked
// skills, once per real directory so a loop ends.
func (w *Watcher) addTree(dir string) error {
	seen := map[string]bool{}
	return walkTree(dir, w.depth(dir), seen, func(d string) error {
		if len(w.tree.dirs) >= w.opts.MaxDirs {
			return fmt.Errorf("more than %d directories (MaxDirs): %w", w.opts.MaxDirs, errTooManyDirs)
		}
		if err := w.tree.fw.Add(d); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil // gone meanwhile: its parent's event said so
			}
			return fmt.Errorf("watching %s: %w", d, err)
		}
		w.tree.dirs[d] = true
		return nil
	}, nil)
}

// depth is how many levels below its root dir is (0 for a root or a path
// under none).
func (w *Watcher) depth(dir string) int {
	for _, r := range w.tree.roots {
		if rel, err := filepath.Rel(r, dir); err == nil && filepath.IsLocal(rel) {
			return strings.Count(filepath.ToSlash(rel), "/") + 1
		}
	}
	return 0
}

// walkTree calls onDir for dir and each non-hidden directory below it, to
// maxTreeDepth, and onEntry (when not nil) for every non-hidden entry. A
// directory symlink is walked through its link path, once per real
// directory (seen). Only the start and directories reached through a
// link are resolved: without a link no directory can be met twice, and
// resolving every directory would cost a system call per path element.
func walkTree(dir string, depth int, seen map[string]bool, onDir func(string) error, onEntry func(path string, fi os.FileInfo)) error {
	return walkDir(dir, depth, true, seen, onDir, onEntry)
}

func walkDir(dir string, depth int, resolve bool, seen map[string]bool, onDir func(string) error, onEntry func(path string, fi os.FileInfo)) error {
	if resolve {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if seen[real] {
				return nil
			}
			seen[real] = true
		}
	}
	if err := onDir(dir); err != nil {
		return err
	}
	if depth >= maxTreeDepth {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable or gone: nothing below to watch
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		isDir, link := e.IsDir(), e.Type()&os.ModeSymlink != 0
		if link {
			fi, err := os.Stat(p)
			isDir = err == nil && fi.IsDir()
		}
		if onEntry != nil {
			if fi, err := os.Stat(p); err == nil {
				onEntry(p, fi)
			}
		}
		if isDir {
			if err := walkDir(p, depth+1, link, seen, onDir, onEntry); err != nil {
				return err
			}
		}
	}
	return nil
}

// runTree is a NewTree Watcher's goroutine.
func (w *Watcher) runTree() {
	t := w.tree
	defer close(w.exited)
	defer close(w.changes)
	defer w.stopTreeNotify()
	defer w.stopTreePolling()
	w.loop(modeHandlers{
		sources: func() (<-chan fsnotify.Event, <-chan error, <-chan time.Time) {
			return sourcesOf(t.fw, t.ticker)
		},
		onEvent: w.onTreeEvent, onError: w.onTreeError, onTick: w.onTreeTick,
	})
}

// onTreeEvent handles one event and reports whether the trees changed.
func (w *Watcher) onTreeEvent(ev fsnotify.Event, ok bool) bool {
	t := w.tree
	switch {
	case !ok:
		w.startTreePolling(errors.New("the watcher stopped delivering events"))
		return true
	case strings.HasPrefix(filepath.Base(ev.Name), "."):
		return false // hidden: never part of a skill
	}
	// A mode or time change alone (chmod +x on a script, a touch) is a
	// change too: the scanner's file signatures hold the change time and
	// it leaves out files it may not read, so a server pinned to the old
	// scan refuses reads of that file until it scans again.
	if ev.Has(fsnotify.Remove | fsnotify.Rename) {
		for _, r := range t.roots {
			if ev.Name == r {
				w.startTreePolling(fmt.Errorf("folder %s was removed or renamed", r))
				return true
			}
		}
		w.dropTree(ev.Name)
	}
	if ev.Has(fsnotify.Create) {
		// A directory created, or renamed in, brings its whole tree:
		// what was made in it before its watch was added is found by
		// the walk, what comes after by the watch.
		if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && !t.dirs[ev.Name] {
			if err := w.addTree(ev.Name); err != nil {
				w.startTreePolling(err)
			}
		}
	}
	return true
}

// dropTree forgets the watches on dir and below it: the system drops a
// removed directory's watch itself, but a directory renamed away keeps
// its watch under its old name.
func (w *Watcher) dropTree(dir string) {
	t := w.tree
	if !t.dirs[dir] {
		return
	}
	prefix := dir + string(filepath.Separator)
	for d := range t.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(t.dirs, d)
			_ = t.fw.Remove(d) // already gone when removed: nothing to undo
		}
	}
}

// onTreeError handles an error from the watcher and reports whether the
// trees may have changed unseen.
func (w *Watcher) onTreeError(err error, ok bool) bool {
	switch {
	case !ok:
		w.startTreePolling(errors.New("the watcher stopped delivering errors"))
		return true
	case errors.Is(err, fsnotify.ErrEventOverflow):
		// Events were lost, maybe the creation of a directory: walk the
		// trees again for directories not yet watched, and look again.
		for _, r := range w.tree.roots {
			if err := w.addMissing(r); err != nil {
				w.startTreePolling(err)
				break
			}
		}
		return true
	}
	w.log.Warn("error watching the skills folders", "roots", w.tree.roots, "error", err.Error())
	return false
}

// addMissing watches the directories under root that are not watched yet.
func (w *Watcher) addMissing(root string) error {
	t := w.tree
	return walkTree(root, w.depth(root), map[string]bool{}, func(d string) error {
		if t.dirs[d] {
			return nil
		}
		if len(t.dirs) >= w.opts.MaxDirs {
			return fmt.Errorf("more than %d directories (MaxDirs): %w", w.opts.MaxDirs, errTooManyDirs)
		}
		if err := t.fw.Add(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("watching %s: %w", d, err)
		}
		t.dirs[d] = true
		return nil
	}, nil)
}

// startTreePolling drops the operating system watches, says why once, and
// polls the trees from now on.
func (w *Watcher) startTreePolling(why error) {
	t := w.tree
	w.stopTreeNotify()
	if t.ticker != nil {
		return
	}
	w.log.Warn("cannot watch the skills folders for changes; polling them instead", "roots", t.roots, "every", w.opts.Poll, "reason", why.Error())
	t.sig, _ = w.treeSignature()
	t.polls = 0
	t.ticker = time.NewTicker(w.opts.Poll)
}

// onTreeTick polls the trees, now and then tries to watch them through the
// operating system again, and reports whether they changed.
func (w *Watcher) onTreeTick() bool {
	t := w.tree
	changed := w.pollTree()
	if t.polls++; t.polls%rewatchEvery != 0 {
		return changed
	}
	if _, dirs := w.treeSignature(); dirs > w.opts.MaxDirs {
		return changed // still too many: do not even try
	}
	if w.watchTree() != nil {
		return changed
	}
	w.stopTreePolling()
	w.log.Info("watching the skills folders for changes again", "roots", t.roots)
	// They may have changed while the watches were being set up.
	sig, _ := w.treeSignature()
	return sig != t.sig || changed
}

// pollTree computes the trees' signature and reports whether it moved.
func (w *Watcher) pollTree() bool {
	sig, _ := w.treeSignature()
	moved := sig != w.tree.sig
	w.tree.sig = sig
	return moved
}

// treeSignature hashes what polling compares: every non-hidden entry's
// path, kind and permissions, size and modification time under each root (a missing root
// hashes as such), and counts the directories seen.
func (w *Watcher) treeSignature() (uint64, int) {
	h := fnv.New64a()
	dirs := 0
	seen := map[string]bool{}
	for _, r := range w.tree.roots {
		if _, err := os.Stat(r); err != nil {
			h.Write([]byte("missing\x00" + r + "\x00"))
			continue
		}
		_ = walkTree(r, 0, seen, func(string) error { dirs++; return nil }, func(p string, fi os.FileInfo) {
			hashEntry(h, p, fi)
		})
	}
	return h.Sum64(), dirs
}

func hashEntry(h hash.Hash64, p string, fi os.FileInfo) {
	b := make([]byte, 0, len(p)+48)
	b = append(b, p...)
	b = append(b, 0)
	b = strconv.AppendUint(b, uint64(fi.Mode()), 16) // type and permissions: a chmod signals
	if !fi.IsDir() {
		b = append(b, ' ')
		b = strconv.AppendInt(b, fi.Size(), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, fi.ModTime().UnixNano(), 10)
	}
	b = append(b, 0)
	h.Write(b)
}

func (w *Watcher) stopTreePolling() {
	if t := w.tree; t.ticker != nil {
		t.ticker.Stop()
		t.ticker = nil
	}
}

// stopTreeNotify closes the operating system watcher, if any.
func (w *Watcher) stopTreeNotify() {
	t := w.tree
	if t.fw != nil {
		if err := t.fw.Close(); err != nil && w.closeErr == nil {
			w.closeErr = err
		}
		t.fw, t.dirs = nil, nil
	}
}
