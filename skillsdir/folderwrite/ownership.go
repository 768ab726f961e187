package folderwrite

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent3md/agent3md/internal/digest"
)

// Whose an entry of a skills directory is, and so what a writer (export
// --skills-dir, sync) may do with it (docs/skill-folders.md §13). Every
// rule is here; write.go, write_swap.go, mirror.go and staged.go apply them,
// and sync's planner asks the same questions (Found.CheckWrite) before it
// fetches anything.
//
//   - What a folder may hold (CheckFilePath): clean relative paths whose
//     elements are visible (no ".git/config" a server plants, which git
//     would run), at most MaxElementBytes long, and never the marker's.
//     A folder's own name is a valid Agent Skills name (ValidName).
//   - Whose a folder is: its marker's writer's (WriteOptions.owns: the
//     same Origin when either has one, else the same Agent). A folder of
//     another writer, or of none, is refused unless Force.
//   - Whose a file is, in a folder the writer owns: the files its marker
//     lists are the writer's; every other entry (file, folder, link) is
//     the user's. A listed file whose bytes differ from the digest the
//     marker records (sync's markers record them) was edited here, and is
//     the user's now too.
//   - Writing: a version that would write where a user's entry is (a path
//     the marker does not list, or a file standing where it needs a
//     folder), or would replace or remove an edited file, is refused,
//     naming them, unless Force. The user's other entries are carried
//     into the new version (write_swap.go, carry).
//   - Removing a folder no longer written (sync's dropped skill, export's
//     pruned one): one holding a user's entry is kept whole and refused,
//     naming them, unless Force. Forced, only the files its marker lists
//     go, then the folder if that empties it: a file no marker lists is
//     never deleted.
//   - Recovering (staged.go): only a leftover whose name decodes to a name
//     a write could have used (validName) is touched; any other stays,
//     reported, so recovery can never reach outside DIR ("..").

// MaxElementBytes is the longest path element a skill folder may hold:
// NAME_MAX on Linux and macOS file systems, so a name a server sends is
// refused with its skill instead of failing the write.
const MaxElementBytes = 255

// owns reports whether a folder whose marker is m is this writer's: the
// same Origin when either has one, else the same Agent.
func (o *WriteOptions) owns(m *Marker) bool {
	if o.Origin != "" || m.Origin != "" {
		return m.Origin == o.Origin
	}
	return m.Agent == o.Agent
}

// notOwned is the refusal of a folder another writer owns.
func (o *WriteOptions) notOwned(path string, m *Marker) error {
	switch {
	case o.Origin != "" && m.Origin != "":
		return fmt.Errorf("%s holds skill %q synced from %s; pass --force to replace it with %s's", path, m.Skill, m.Origin, o.Origin)
	case o.Origin != "":
		return fmt.Errorf("%s holds skill %q exported by agent %q; pass --force to replace it with %s's", path, m.Skill, m.Agent, o.Origin)
	case m.Origin != "":
		return fmt.Errorf("%s holds skill %q synced from %s; pass --force to replace it with agent %q's", path, m.Skill, m.Origin, o.Agent)
	}
	return fmt.Errorf("%s holds skill %q of agent %q; pass --force to replace it with agent %q's", path, m.Skill, m.Agent, o.Agent)
}

// maxNamed is how many of a folder's user files a refusal names.
const maxNamed = 10

// CheckFilePath refuses a slash path no skill folder written here may
// hold: one that is not a clean relative path inside the folder, has an
// element that starts with "." (hidden: a skill's .git, .env or the
// marker) or is over MaxElementBytes.
func CheckFilePath(p string) error {
	if !localSlashPath(p) {
		return fmt.Errorf("file path %s is not a clean relative path inside the folder", quote(p))
	}
	for _, e := range strings.Split(p, "/") {
		switch {
		case e == markerFile:
			return fmt.Errorf("file path %s goes through %s, the marker's name", quote(p), markerFile)
		case strings.HasPrefix(e, "."):
			return fmt.Errorf("file path %s has the hidden element %s; a skill folder written here holds none (a .git/config could run commands)", quote(p), quote(e))
		case len(e) > MaxElementBytes:
			return fmt.Errorf("file path %s has an element of %d bytes, over the file system's %d-byte limit", quote(p), len(e), MaxElementBytes)
		}
	}
	return nil
}

// Refusal is a folder the rules above keep a writer from writing or
// removing: that skill's problem, which sync reports against the skill
// while it writes the others, where any other error is the directory's.
type Refusal struct {
	// Folder is the folder's name in the directory, Path its full path.
	Folder, Path string
	// Reason says why, whole (Error).
	Reason string
	// Files are the user's entries in question, by slash path inside the
	// folder (at most maxNamed).
	Files []string
}

func (r *Refusal) Error() string { return r.Reason }

// refusalOf makes err, a check's failure for the folder name, a Refusal.
func refusalOf(d *dirFD, name string, err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return &Refusal{Folder: name, Path: d.join(name), Reason: err.Error()}
}

// refusals is WriteFolders' refusal of a whole write: one Refusal per
// folder, any of which errors.As finds.
type refusals struct {
	command, dir string
	list         []*Refusal
}

func (e *refusals) Error() string {
	lines := make([]string, len(e.list))
	for i, r := range e.list {
		lines[i] = r.Reason
	}
	return fmt.Sprintf("%s into %s refused; nothing was written:\n  %s", e.command, e.dir, strings.Join(lines, "\n  "))
}

func (e *refusals) Unwrap() []error {
	out := make([]error, len(e.list))
	for i, r := range e.list {
		out[i] = r
	}
	return out
}

// userEntriesAt lists the user's entries a version writing paths into
// live would write over: per path, the first element on its way that
// exists and is not a folder, or the path itself whatever it is, unless
// listed (the writer's own files) says it is the writer's. A symbolic link
// is left to checkPath, which refuses it even forced.
func userEntriesAt(live *dirFD, paths []string, listed map[string]bool) ([]string, error) {
	dirs := map[string]*dirFD{".": live}
	defer func() {
		for k, fd := range dirs {
			if k != "." {
				fd.close()
			}
		}
	}()
	var out []string
	for _, p := range paths {
		elems := strings.Split(p, "/")
		for i := range elems {
			q := strings.Join(elems[:i+1], "/")
			if listed[q] {
				break
			}
			parent, err := openParent(dirs, q)
			if err != nil {
				return nil, err
			}
			if parent == nil {
				break
			}
			id, err := parent.lstat(elems[i])
			if errors.Is(err, fs.ErrNotExist) {
				break
			}
			if err != nil {
				return nil, err
			}
			if id.mode == fs.ModeSymlink {
				break
			}
			if id.mode == fs.ModeDir && i < len(elems)-1 {
				continue
			}
			if !slices.Contains(out, q) {
				out = append(out, q)
			}
			break
		}
	}
	return out, nil
}

// editedFiles lists the files m lists with a digest whose bytes below d
// differ from it now. A file gone is no edit (the writer puts it back);
// one over max bytes, or no longer a regular file, is one.
func editedFiles(d *dirFD, m *Marker, max int64) ([]string, error) {
	var out []string
	for _, p := range m.Files {
		want, ok := m.Digests[p]
		if !ok {
			continue
		}
		data, found, over, err := readFileAt(d, p, max)
		switch {
		case err != nil && strings.Contains(err.Error(), "not a regular file"), over:
			out = append(out, p)
		case err != nil:
			return nil, err
		case found && digest.Of(data) != want:
			out = append(out, p)
		}
	}
	return out, nil
}

// judgeWrite is the write rule over what a caller read itself (sync's
// planner): the paths a version writes that a regular file not listed
// holds (onDisk has a digest for each regular file there), and the
// listed files whose digest on disk is not the recorded one.
func judgeWrite(listed []string, digests map[string]string, paths []string, onDisk map[string]string) (users, edited []string) {
	for _, p := range paths {
		if _, there := onDisk[p]; there && !slices.Contains(listed, p) {
			users = append(users, p)
		}
	}
	for _, p := range listed {
		want, had := digests[p]
		got, there := onDisk[p]
		if had && there && got != want {
			edited = append(edited, p)
		}
	}
	return users, edited
}

// writeRefusal is the refusal of a version of the folder at full that
// would write over users' entries or replace or remove edited files; nil
// when there are none.
func (o *WriteOptions) writeRefusal(name, full string, users, edited []string) error {
	if len(users)+len(edited) == 0 {
		return nil
	}
	var why []string
	if len(users) > 0 {
		why = append(why, fmt.Sprintf("%s holds %s, which 'agent3md %s' did not write and the new version of the skill writes", full, list(users), o.command()))
	}
	if len(edited) > 0 {
		why = append(why, fmt.Sprintf("%s changed here since 'agent3md %s' wrote it (%s)", full, o.command(), list(edited)))
	}
	return &Refusal{Folder: name, Path: full, Files: named(append(users, edited...)),
		Reason: strings.Join(why, "; and ") + "; move them elsewhere, or pass --force to replace them"}
}

// checkWrite applies the write rule to the live folder whose marker, m,
// the writer owns, for the folder f: nil unless forced or clear.
func (o *WriteOptions) checkWrite(live *dirFD, m *Marker, f Folder) error {
	if o.Force || m == nil || !o.owns(m) {
		return nil
	}
	listed := make(map[string]bool, len(m.Files))
	for _, p := range m.Files {
		listed[p] = true
	}
	paths := make([]string, len(f.Files))
	for i, file := range f.Files {
		paths[i] = file.Path
	}
	users, err := userEntriesAt(live, paths, listed)
	if err != nil {
		return err
	}
	edited, err := editedFiles(live, m, o.maxFileBytes())
	if err != nil {
		return err
	}
	return o.writeRefusal(f.Name, live.path, users, edited)
}

// CheckWrite applies the write rule to a folder as Survey found it, for
// a version writing paths, given the digests of the regular files on disk
// now (HashFiles over paths and f.Files): nil when o may write it, else
// the Refusal. Whether o owns the folder at all is the caller's question
// (Owned); a folder it does not own, or a forced write, is not refused
// here.
func (f *Found) CheckWrite(dir string, o *WriteOptions, paths []string, local map[string]string) error {
	if o.Force || !f.Owned(o) {
		return nil
	}
	users, edited := judgeWrite(f.Files, f.Digests, paths, local)
	return o.writeRefusal(f.Name, filepath.Join(dir, f.Name), users, edited)
}

// addedEntries lists the entries below d no path of listed accounts for,
// the marker aside: files, links and folders holding no listed path, by
// slash path; folders holding one are entered. Stops at maxNamed+1.
func addedEntries(d *dirFD, listed map[string]bool) ([]string, error) {
	holds := map[string]bool{}
	for p := range listed {
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			holds[dir] = true
		}
	}
	var out []string
	var walk func(d *dirFD, prefix string) error
	walk = func(d *dirFD, prefix string) error {
		names, err := d.names()
		if err != nil {
			return err
		}
		slices.Sort(names)
		for _, n := range names {
			rel := path.Join(prefix, n)
			if listed[rel] || rel == markerFile || len(out) > maxNamed {
				continue
			}
			if id, err := d.lstat(n); err == nil && id.mode == fs.ModeDir && holds[rel] {
				sub, err := d.openDir(n)
				if err != nil {
					return err
				}
				err = walk(sub, rel)
				sub.close()
				if err != nil {
					return err
				}
				continue
			}
			out = append(out, rel)
		}
		return nil
	}
	return out, walk(d, "")
}

// checkRemove applies the removal rule to d, the folder name whose
// marker m the writer owns: nil when it holds only m's files, each as
// written (or forced), else the Refusal naming the others.
func (o *WriteOptions) checkRemove(d *dirFD, name string, m *Marker) error {
	if o.Force {
		return nil
	}
	listed := make(map[string]bool, len(m.Files))
	for _, p := range m.Files {
		listed[p] = true
	}
	added, err := addedEntries(d, listed)
	if err != nil {
		return err
	}
	edited, err := editedFiles(d, m, o.maxFileBytes())
	if err != nil {
		return err
	}
	if len(added)+len(edited) == 0 {
		return nil
	}
	var what []string
	if len(added) > 0 {
		what = append(what, list(added)+" added")
	}
	if len(edited) > 0 {
		what = append(what, list(edited)+" changed here")
	}
	return &Refusal{Folder: name, Path: d.path, Files: named(append(added, edited...)),
		Reason: fmt.Sprintf("%s is no longer written by 'agent3md %s', but it holds files of yours (%s); it is kept; move them elsewhere, or pass --force to remove the files %s wrote (yours stay)",
			d.path, o.command(), strings.Join(what, "; "), o.command())}
}

// CheckRemove applies the removal rule to the folder name of dir, which
// o owns: nil when RemoveFolders would remove it, else why not (a
// Refusal when it holds files of the user's).
func CheckRemove(dir, name string, opts *WriteOptions) error {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	root, err := openDirRoot(dir)
	if err != nil {
		return err
	}
	defer root.close()
	d, m, err := openOwned(root, name, &o)
	if err != nil || d == nil {
		return err
	}
	defer d.close()
	return o.checkRemove(d, name, m)
}

// openOwned opens the folder name of root and reads its marker, refusing
// one the writer does not own; nil when there is none.
func openOwned(root *dirFD, name string, o *WriteOptions) (*dirFD, *Marker, error) {
	d, err := openExisting(root, name)
	if err != nil || d == nil {
		return nil, nil, err
	}
	m, err := readMarker(d)
	switch {
	case err != nil:
	case m == nil:
		err = fmt.Errorf("%s was not written by 'agent3md %s' (no %s); it is left as it is", d.path, o.command(), markerFile)
	case !o.owns(m):
		err = o.notOwned(d.path, m)
	}
	if err != nil {
		d.close()
		return nil, nil, err
	}
	return d, m, nil
}

// named is the first maxNamed of paths.
func named(paths []string) []string {
	return slices.Clone(paths[:min(len(paths), maxNamed)])
}

// list names paths for a message, quoting those a terminal or a reader
// could misread, and saying how many more there are.
func list(paths []string) string {
	shown := make([]string, 0, maxNamed+1)
	for _, p := range named(paths) {
		shown = append(shown, quote(p))
	}
	if len(paths) > maxNamed {
		shown = append(shown, "and more")
	}
	return strings.Join(shown, ", ")
}

// quote is p as it is when it is plain printable text, else Go-quoted.
func quote(p string) string {
	if q := strconv.Quote(p); q[1:len(q)-1] != p {
		return q
	}
	return p
}

// maxFileBytes is the largest file the writer reads to compare.
func (o *WriteOptions) maxFileBytes() int64 {
	if o.MaxFileBytes > 0 {
		return o.MaxFileBytes
	}
	return DefaultMaxCompareBytes
}

// DefaultMaxCompareBytes is WriteOptions.MaxFileBytes when unset: no file
// export writes comes near it.
const DefaultMaxCompareBytes = 64 << 20
