package folderwrite

import (
	"errors"
	"io/fs"
	"regexp"
	"sort"
	"time"
)

// A write that is killed (SIGKILL, power loss) between making a folder's
// next version in a hidden folder beside it and swapping it into place
// leaves that hidden folder behind (tempName). Until the swap, the
// entries of the live folder that the write neither writes nor owns (a
// user's own notes, say) have already been moved into it, so the live
// folder lacks them; after the swap, the hidden folder is the previous
// version. The marker is the first file a write puts in its hidden
// folder, so a leftover says whose it is. RecoverStaged finds such
// leftovers and does what the killed write would have: the files its
// marker lists and those the live folder's marker lists (when it is this
// writer's) go, whatever else it holds goes back into the live folder,
// and the hidden folder goes once that leaves it empty. It never deletes
// a file no marker of this writer lists, and it never overwrites one: an
// entry the live folder has again since stays where it is, and the
// hidden folder with it. It touches only a leftover whose name decodes to
// a name a write could have used (ownership.go): "....agent3md-…", which
// decodes to "..", would otherwise lead it into DIR's parent.

// staleAfter is how long a hidden folder must have gone unchanged before
// it is taken for a leftover: a live write adds to its hidden folder as it
// goes and swaps it in within moments, so one untouched this long belongs
// to no running write.
const staleAfter = 10 * time.Minute

// stagedName matches tempName's names: the folder's name, then the
// random suffix.
var stagedName = regexp.MustCompile(`^\.(.+)\.agent3md-[0-9a-f]{16}$`)

// RecoverStaged puts right what writes killed midway left in dir (see
// above) for the writer opts names: hidden folders whose marker it owns,
// or, when they hold none, whose live folder's marker it owns. Those
// changed in the last ten minutes are left alone, as a write in progress
// may own them. The report lists, as Restored, the entries moved back
// into their folders, as Removed the files of the leftovers removed, and
// as Left the hidden folders that could not be emptied (their entries are
// in the live folder again), and as Skipped those named like a leftover
// for a name no write uses, left as they are. Export and sync call it before they write;
// a program calling WriteFolders should too.
func RecoverStaged(dir string, opts *WriteOptions) (*Report, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	root, err := openDirRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &Report{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.close()
	return recoverStaged(root, &o, time.Now())
}

func recoverStaged(root *dirFD, o *WriteOptions, now time.Time) (*Report, error) {
	names, err := root.names()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	rep := &Report{}
	for _, name := range names {
		m := stagedName.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		if id, err := root.lstat(name); err != nil || id.mode != fs.ModeDir {
			continue // a link is never entered
		}
		if !ValidName(m[1]) {
			rep.Skipped = append(rep.Skipped, root.join(name))
			continue
		}
		if err := recoverOne(root, name, m[1], o, now, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// recoverOne puts right the leftover staged beside the folder skill.
func recoverOne(root *dirFD, staged, skill string, o *WriteOptions, now time.Time, rep *Report) error {
	s, err := root.openDir(staged)
	if err != nil {
		return nil // gone, or swapped for something else: not ours to touch
	}
	defer s.close()
	if t, err := s.modTime(); err != nil || now.Sub(t) < staleAfter {
		return nil
	}
	m, err := readMarker(s)
	if err != nil {
		// Cut short by the kill (created, not yet written): a leftover
		// with no marker to go by, as one killed before it.
		m = nil
	}
	live, err := openExisting(root, skill)
	if err != nil {
		return nil // a link or a file where the folder was: leave both
	}
	var lm *Marker
	if live != nil {
		defer live.close()
		if lm, err = readMarker(live); err != nil {
			lm = nil
		}
	}
	ownLive := lm != nil && o.owns(lm)
	if m != nil && !o.owns(m) || m == nil && !ownLive {
		return nil
	}
	// What the write that left it would have removed: the files its
	// marker lists, and those the live folder's lists when it is ours;
	// what it carried across is everything else (write_swap.go, carry).
	w := &folderWrite{planned: map[string]bool{}, owned: map[string]bool{}}
	for _, mk := range []*Marker{m, lm} {
		if mk == nil || mk == lm && !ownLive {
			continue
		}
		w.planned[markerFile] = true
		for _, p := range mk.Files {
			w.owned[p] = true
		}
	}
	if live != nil {
		// What it carried across goes back the same way; an entry the
		// folder holds again stays.
		w.keepClashes = true
		if err := w.carry(s, live, ""); err != nil {
			return err
		}
		for _, rel := range w.carried {
			rep.Restored = append(rep.Restored, skill+"/"+rel)
		}
	}
	for p := range w.clear(s) {
		if p != markerFile {
			rep.Removed = append(rep.Removed, staged+"/"+p)
		}
	}
	if err := root.remove(staged, true); err != nil {
		rep.Left = append(rep.Left, root.join(staged))
	}
	return nil
}
