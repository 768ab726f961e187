package folderwrite

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/agent3md/agent3md/internal/digest"
)

// What a writer that mirrors a source (agent3md sync, docs/sync.md) needs
// beside WriteFolders: the state of each folder before it decides
// anything, the digests of what is on disk now, and the removal of its
// own folders one by one (whose a folder is, by Origin or Agent, is
// ownership.go's). Every path goes through directories opened without
// following links, as writes do.

// IsMarker reports whether the slash path p inside a skill folder is the
// marker's: no source may write a file there.
func IsMarker(p string) bool { return p == markerFile }

// FoundKind says what a name in a skills directory is.
type FoundKind int

// The kinds of Found.
const (
	FoundNone  FoundKind = iota // nothing by that name
	FoundDir                    // a real directory
	FoundLink                   // a symbolic link: never written through
	FoundOther                  // a file, a FIFO, anything else
)

// Found is a skill folder as a writer finds it, before deciding.
type Found struct {
	Name string
	Kind FoundKind
	// Marked says the folder holds a marker; the fields below are read
	// from it. MarkerErr is why a marker could not be read.
	Marked                    bool
	MarkerErr                 error
	Agent, Origin, Skill, URI string
	Files                     []string
	Digests                   map[string]string
	ownedBy                   *Marker
}

// Owned reports whether the folder is o's (its marker names o's Origin,
// or o's Agent when neither has an Origin).
func (f *Found) Owned(o *WriteOptions) bool { return f.ownedBy != nil && o.owns(f.ownedBy) }

// Survey finds every visible entry of dir, sorted by name; a missing dir
// has none.
func Survey(dir string) ([]*Found, error) {
	root, err := openDirRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.close()
	names, err := root.names()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []*Found
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			continue
		}
		f, err := look(root, n)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func look(root *dirFD, name string) (*Found, error) {
	f := &Found{Name: name}
	id, err := root.lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil:
		return nil, err
	case id.mode == fs.ModeSymlink:
		f.Kind = FoundLink
		return f, nil
	case id.mode != fs.ModeDir:
		f.Kind = FoundOther
		return f, nil
	}
	f.Kind = FoundDir
	d, err := root.openDir(name)
	if err != nil {
		return nil, err
	}
	defer d.close()
	m, err := readMarker(d)
	switch {
	case err != nil:
		f.Marked, f.MarkerErr = true, err
	case m != nil:
		f.Marked, f.ownedBy = true, m
		f.Agent, f.Origin, f.Skill, f.URI = m.Agent, m.Origin, m.Skill, m.URI
		f.Files, f.Digests = m.Files, m.Digests
	}
	return f, nil
}

// HashFiles is the SHA-256 digest of each regular file at paths below
// dir/name as it is now; a path with nothing there is left out. A file
// over max bytes, or a link or something else than a regular file on the
// way, is an error. Each folder on the way is opened once (a no-op sync
// hashes every file of every skill).
func HashFiles(dir, name string, paths []string, max int64) (map[string]string, error) {
	root, err := openDirRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.close()
	d, err := openExisting(root, name)
	if err != nil || d == nil {
		return map[string]string{}, err
	}
	dirs := map[string]*dirFD{".": d}
	defer func() {
		for _, fd := range dirs {
			fd.close()
		}
	}()
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		if !localSlashPath(p) {
			return nil, fmt.Errorf("%q is not a path inside a folder", p)
		}
		parent, err := openParent(dirs, p)
		if err != nil {
			return nil, err
		}
		if parent == nil {
			continue
		}
		b, over, err := parent.readFile(path.Base(p), max)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		case over:
			return nil, fmt.Errorf("%s is over %d bytes", d.join(p), max)
		default:
			out[p] = digest.Of(b)
		}
	}
	return out, nil
}

// openParent opens the folder holding p, one component at a time without
// following links, through the folders already open in dirs (keyed by
// slash path, "." the skill folder); nil when one does not exist.
func openParent(dirs map[string]*dirFD, p string) (*dirFD, error) {
	parent := path.Dir(p)
	if fd, ok := dirs[parent]; ok {
		return fd, nil
	}
	up, err := openParent(dirs, parent)
	if err != nil || up == nil {
		return nil, err
	}
	fd, err := up.openDir(path.Base(parent))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dirs[parent] = fd
	return fd, nil
}

// RemoveFolders removes the folders names of dir that o owns (Found.Owned),
// by the removal rule (ownership.go): one holding a file of the user's
// (added, or one the marker lists edited since) is kept whole and refused
// with a *Refusal, unless forced. It removes SKILL.md first, so a host
// stops seeing the skill at once, then the other files the marker lists
// and the marker, then the folder when that leaves it empty: files the
// writer did not write stay, forced or not. A folder o does not own, or
// one that is a link, is refused, and nothing of it is removed.
func RemoveFolders(dir string, names []string, opts *WriteOptions) (*Report, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	root, err := openDirRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.close()
	rep := &Report{}
	for _, name := range names {
		if err := removeOwned(root, name, &o, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func removeOwned(root *dirFD, name string, o *WriteOptions, rep *Report) error {
	d, m, err := openOwned(root, name, o)
	if err != nil || d == nil {
		return err
	}
	defer d.close()
	if err := o.checkRemove(d, name, m); err != nil {
		return err
	}
	files := slices.Clone(m.Files)
	// SKILL.md first: the folder stops being a skill before it empties.
	slices.SortStableFunc(files, func(a, b string) int {
		return boolInt(b == "SKILL.md") - boolInt(a == "SKILL.md")
	})
	w := &folderWrite{planned: map[string]bool{}, owned: map[string]bool{}}
	for _, p := range files {
		if err := checkPath(d, p); err != nil {
			return err
		}
		parent, base, err := walkTo(d, p, false)
		if err != nil {
			return err
		}
		if parent == nil {
			continue
		}
		err = parent.remove(base, false)
		parent.close()
		if err == nil {
			rep.Removed = append(rep.Removed, name+"/"+p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		w.owned[p] = true
	}
	w.planned[markerFile] = true
	w.clear(d) // the marker, and the folders left empty
	root.remove(name, true)
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
