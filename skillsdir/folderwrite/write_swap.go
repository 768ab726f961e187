package folderwrite

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
)

// replace writes the folder anew in a hidden folder beside the live one
// (live is nil when there is none), moves into it the entries of the live
// folder this write neither writes nor owns, and puts it in the live one's
// place; the old version is then cleared and removed.
func (w *folderWrite) replace(root, live *dirFD, markerData []byte) error {
	tmpName := tempName(w.f.Name)
	if err := root.mkdir(tmpName, 0o700); err != nil {
		return err
	}
	tmp, err := root.openDir(tmpName)
	if err != nil {
		return err
	}
	defer tmp.close()
	placed := false
	defer func() {
		if !placed {
			w.discard(root, tmpName, tmp, live)
		}
	}()
	// The marker first: a write killed from here on leaves a hidden
	// folder that says whose it is, which RecoverStaged needs to put it
	// right (staged.go).
	if err := tmp.create(markerFile, markerData); err != nil {
		return err
	}
	for _, file := range w.f.Files {
		if err := writeAt(tmp, file.Path, file.Data); err != nil {
			return err
		}
	}
	if live == nil {
		if err := tmp.chmod(0o755); err != nil {
			return err
		}
		if err := renameNew(root, tmpName, w.f.Name); err != nil {
			return err
		}
		placed = true
		return nil
	}
	if err := w.carry(live, tmp, ""); err != nil {
		return err
	}
	if err := tmp.chmod(0o755); err != nil {
		return err
	}
	liveID, err := live.self()
	if err != nil {
		return err
	}
	if cur, err := root.lstat(w.f.Name); err != nil || !cur.same(liveID) {
		return fmt.Errorf("%s changed while it was written (it was replaced); nothing of it was replaced by export", live.path)
	}
	oldName, err := swapIn(root, tmpName, w.f.Name)
	if err != nil {
		return err
	}
	placed = true
	if gone, err := root.lstat(oldName); err != nil || !gone.same(liveID) {
		return fmt.Errorf("%s changed while it was written (it was replaced); the new folder is in place, what was there is left at %s", root.join(w.f.Name), root.join(oldName))
	}
	// What was put into the old folder since it was read goes across too.
	if err := w.carry(live, tmp, ""); err != nil {
		return fmt.Errorf("%w; the previous version of the folder is left at %s", err, root.join(oldName))
	}
	w.clear(live)
	if err := root.remove(oldName, true); err != nil {
		return fmt.Errorf("%s changed while it was written: the previous version, left at %s, holds files export did not write; move them into the folder and remove it", root.join(w.f.Name), root.join(oldName))
	}
	return nil
}

// discard undoes a write that did not take place: the entries carried
// into the new folder go back, then it is cleared and removed. What cannot
// go back stays in it, and so does the folder.
func (w *folderWrite) discard(root *dirFD, tmpName string, tmp, live *dirFD) {
	for _, rel := range slices.Backward(w.carried) {
		if live == nil {
			break
		}
		from, name, err := walkTo(tmp, rel, false)
		if err != nil || from == nil {
			continue
		}
		if to, _, err := walkTo(live, rel, true); err == nil && to != nil {
			renameAt(from, name, to, name)
			to.close()
		}
		from.close()
	}
	w.clear(tmp)
	root.remove(tmpName, true)
}

// writeAt creates the file at rel below d, making its folders.
func writeAt(d *dirFD, rel string, data []byte) error {
	parent, name, err := walkTo(d, rel, true)
	if err != nil {
		return err
	}
	defer parent.close()
	return parent.create(name, data)
}

// isDirOfWrite reports whether rel is a folder that holds a path this
// write writes or owns.
func (w *folderWrite) isDirOfWrite(rel string) bool {
	for _, set := range []map[string]bool{w.planned, w.owned} {
		for p := range set {
			if strings.HasPrefix(p, rel+"/") {
				return true
			}
		}
	}
	return false
}

// carry moves the entries below src that this write neither writes nor
// owns into dst, at the same paths, recording each in w.carried. A folder
// holding paths of the write is entered, never followed if it is a link.
// A clash (dst holds an entry at the same path, or a folder on the way
// cannot be opened) is an error, unless w.keepClashes: then the entry
// stays in src (RecoverStaged puts entries back that way).
func (w *folderWrite) carry(src, dst *dirFD, prefix string) error {
	names, err := src.names()
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		rel := path.Join(prefix, name)
		if w.planned[rel] || w.owned[rel] {
			continue
		}
		if w.isDirOfWrite(rel) {
			if err := w.carryInto(src, dst, name, rel); err != nil && !w.keepClashes {
				return err
			}
			continue
		}
		if _, err := dst.lstat(name); err == nil {
			if w.keepClashes {
				continue
			}
			return fmt.Errorf("%s changed while it was written (%s appeared in both versions)", src.join(name), rel)
		}
		if err := renameAt(src, name, dst, name); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // gone meanwhile
			}
			return err
		}
		w.carried = append(w.carried, rel)
	}
	return nil
}

// carryInto carries the folder name of src, which holds paths of the
// write, into the folder of that name in dst (made when missing).
func (w *folderWrite) carryInto(src, dst *dirFD, name, rel string) error {
	sub, err := src.openDir(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer sub.close()
	dsub, err := dst.openDir(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err = dst.mkdir(name, 0o755); err == nil {
			dsub, err = dst.openDir(name)
		}
	}
	if err != nil {
		return err
	}
	defer dsub.close()
	return w.carry(sub, dsub, rel)
}

// clear removes, below d, the files this write writes or owns and the
// marker, then the folders that leaves empty; anything else stays. It
// returns the paths it removed.
func (w *folderWrite) clear(d *dirFD) (removed map[string]bool) {
	removed = map[string]bool{}
	var dirs []string
	for _, set := range []map[string]bool{w.planned, w.owned} {
		for p := range set {
			if parent, name, err := walkTo(d, p, false); err == nil && parent != nil {
				if parent.remove(name, false) == nil {
					removed[p] = true
				}
				parent.close()
			}
			for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
				dirs = append(dirs, dir)
			}
		}
	}
	// Deepest first, so a folder is empty by the time it is tried.
	sort.Slice(dirs, func(i, j int) bool { return strings.Count(dirs[i], "/") > strings.Count(dirs[j], "/") })
	for _, dir := range slices.Compact(dirs) {
		if parent, name, err := walkTo(d, dir, false); err == nil && parent != nil {
			parent.remove(name, true) // only succeeds when empty
			parent.close()
		}
	}
	return removed
}

// pruneNames is the folders an earlier write for the writer made that
// folders no longer holds, with their markers.
func pruneNames(root *dirFD, folders []Folder, o *WriteOptions) (map[string]*Marker, error) {
	names, err := root.names()
	if err != nil {
		return nil, err
	}
	current := make(map[string]bool, len(folders))
	for _, f := range folders {
		current[f.Name] = true
	}
	out := map[string]*Marker{}
	for _, name := range names {
		if current[name] || strings.HasPrefix(name, ".") {
			continue
		}
		if id, err := root.lstat(name); err != nil || id.mode != fs.ModeDir {
			continue // a link is never entered
		}
		d, err := root.openDir(name)
		if err != nil {
			continue
		}
		m, err := readMarker(d)
		d.close()
		if err == nil && m != nil && o.owns(m) {
			out[name] = m
		}
	}
	return out, nil
}

// checkPrune refuses, before anything is written, the folders a prune
// would remove that hold files of the user's (ownership.go).
func checkPrune(root *dirFD, folders []Folder, o *WriteOptions) []*Refusal {
	gone, err := pruneNames(root, folders, o)
	if err != nil {
		return []*Refusal{{Path: root.path, Reason: err.Error()}}
	}
	var out []*Refusal
	for _, name := range slices.Sorted(maps.Keys(gone)) {
		d, err := root.openDir(name)
		if err != nil {
			continue // gone meanwhile
		}
		if err := o.checkRemove(d, name, gone[name]); err != nil {
			out = append(out, refusalOf(root, name, err))
		}
		d.close()
	}
	return out
}

// pruneFolders removes the folders an earlier write for the writer made
// that folders no longer holds (checkPrune passed them): the files their
// markers list, the marker, and the folder when that leaves it empty. One
// that gained a file of the user's since it was checked is left.
func pruneFolders(root *dirFD, folders []Folder, o *WriteOptions, rep *Report) error {
	gone, err := pruneNames(root, folders, o)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(gone)) {
		m := gone[name]
		d, err := root.openDir(name)
		if err != nil {
			continue
		}
		if o.checkRemove(d, name, m) != nil {
			d.close()
			continue
		}
		w := &folderWrite{planned: map[string]bool{markerFile: true}, owned: map[string]bool{}}
		for _, p := range m.Files {
			w.owned[p] = true
		}
		removed := w.clear(d)
		for _, p := range m.Files {
			if removed[p] {
				rep.Removed = append(rep.Removed, name+"/"+p)
			}
		}
		d.close()
		root.remove(name, true) // only succeeds when empty
	}
	return nil
}
