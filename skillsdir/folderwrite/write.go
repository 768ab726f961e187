package folderwrite

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/internal/digest"
)

// Writing skill folders into a directory that is often shared
// (~/.claude/skills) must never destroy what it did not write, nor write
// anywhere else (docs/cli.md, export). Whose each entry is, and so what
// may be written or removed, is ownership.go's; how it is done safely:
//
//   - Every folder is checked before any is written, so a refusal changes
//     nothing.
//   - Nothing is written or removed through a symbolic link. Every
//     operation goes through directories opened without following links
//     (dirFD), so a link swapped in after a check makes it fail instead of
//     leading it outside.
//   - A folder that changes is written whole into a new hidden folder
//     beside it, which then takes its place in one rename (an exchange
//     where the system has one): a reader sees the old skill or the new,
//     never a mix. Files in it the writer did not write are moved across.

// FolderFile is one file of a skill folder: its slash path inside the folder and
// its bytes.
type FolderFile struct {
	Path string
	Data []byte
}

// Folder is one skill folder to write into a skills directory.
type Folder struct {
	// Name is the folder's name in the directory (the skill's slug).
	Name string
	// Skill is the skill it holds, as its marker names it.
	Skill string
	// URI, when set, is where the skill came from (a sync's SKILL.md
	// URI), recorded in its marker.
	URI string
	// Files are its files, SKILL.md first; the marker is added.
	Files []FolderFile
}

// WriteOptions say who writes skill folders, and how.
type WriteOptions struct {
	// Agent owns the folders: a folder whose marker names another agent,
	// or that has none, is refused unless Force. Markers carry it.
	Agent string
	// Source is the file the folders come from, named in each marker.
	Source string
	// Force writes into folders another agent (or nothing) wrote.
	Force bool
	// Prune removes the folders an earlier write for Agent made that
	// Folders no longer holds (the files its marker lists, then the
	// folder when that leaves it empty).
	Prune bool
	// Command names the writer in messages ("export": "was not written
	// by 'agent3md export'"); "" is "export".
	Command string
	// Origin, when set, owns the folders instead of Agent: a sync's
	// source (its URL or server command). A folder is then this
	// writer's only when its marker names the same Origin, and each
	// marker also records every file's SHA-256 (mirror.go).
	Origin string
	// MaxFileBytes is the largest file read to compare it with the
	// digest a marker records (a larger one counts as changed);
	// DefaultMaxCompareBytes when 0.
	MaxFileBytes int64
	// Head is what export adds to each marker: the agent file's
	// frontmatter and identity plane, for import to give back.
	Head *AgentHead
}

func (o *WriteOptions) command() string {
	if o.Command == "" {
		return "export"
	}
	return o.Command
}

// fileID is what a write checks of an entry: its identity and kind.
type fileID struct {
	dev, ino uint64
	info     fs.FileInfo // where there are no device and inode numbers
	mode     fs.FileMode // fs.ModeDir, fs.ModeSymlink, 0 (regular) or fs.ModeIrregular
	size     int64
}

func (a fileID) same(b fileID) bool {
	if a.info != nil && b.info != nil {
		return os.SameFile(a.info, b.info)
	}
	return a.dev == b.dev && a.ino == b.ino
}

// maxMarkerBytes bounds a marker file; ours are a few hundred bytes.
const maxMarkerBytes = 1 << 20

// WriteFolders writes folders into dir by the rules above and reports
// every file created, replaced, left unchanged and removed. dir is made
// when missing; it may itself be a symbolic link.
func WriteFolders(dir string, folders []Folder, opts *WriteOptions) (*Report, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	for _, f := range folders {
		if err := f.check(); err != nil {
			return nil, &refusals{command: o.command(), dir: dir, list: []*Refusal{{Folder: f.Name, Path: filepath.Join(dir, f.Name), Reason: err.Error()}}}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	root, err := openDirRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.close()
	refused := &refusals{command: o.command(), dir: dir}
	for _, f := range folders {
		if err := checkFolder(root, f, &o); err != nil {
			refused.list = append(refused.list, refusalOf(root, f.Name, err))
		}
	}
	if o.Prune {
		refused.list = append(refused.list, checkPrune(root, folders, &o)...)
	}
	if len(refused.list) > 0 {
		return nil, refused
	}
	rep := &Report{}
	for _, f := range folders {
		m := Marker{Agent: o.Agent, Source: o.Source, Skill: f.Skill, Head: o.Head, Origin: o.Origin, URI: f.URI}
		if err := writeFolder(root, f, m, &o, rep); err != nil {
			return rep, err
		}
	}
	if o.Prune {
		if err := pruneFolders(root, folders, &o, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// check refuses a folder no skills directory may hold (ownership.go): a
// name that is not a valid Agent Skills name, a file path CheckFilePath
// refuses, or one path twice.
func (f *Folder) check() error {
	if !ValidName(f.Name) {
		return fmt.Errorf("skill folder name %s is not a valid Agent Skills name", quote(f.Name))
	}
	seen := map[string]bool{}
	for _, file := range f.Files {
		if err := CheckFilePath(file.Path); err != nil {
			return fmt.Errorf("skill folder %s: %w", f.Name, err)
		}
		if seen[file.Path] {
			return fmt.Errorf("skill folder %s: file path %s is listed twice", f.Name, quote(file.Path))
		}
		seen[file.Path] = true
	}
	return nil
}

// localSlashPath reports a clean relative slash path that stays inside.
func localSlashPath(p string) bool {
	return p != "" && path.Clean(p) == p && filepath.IsLocal(filepath.FromSlash(p)) && !strings.Contains(p, `\`)
}

// checkFolder refuses a skill folder that is a symbolic link, holds one on
// a path this write would use, was not written by the same writer, or
// holds a user's file the write would replace or remove (ownership.go;
// the last two unless forced).
func checkFolder(root *dirFD, f Folder, o *WriteOptions) error {
	live, err := openExisting(root, f.Name)
	if err != nil || live == nil {
		return err
	}
	defer live.close()
	m, err := readMarker(live)
	switch {
	case err != nil:
		return err
	case m == nil && !o.Force:
		return fmt.Errorf("%s was not written by 'agent3md %s' (no %s); move it away, or pass --force to write into it", live.path, o.command(), markerFile)
	case m != nil && !o.owns(m) && !o.Force:
		return o.notOwned(live.path, m)
	}
	// The user's files first: a refusal names them, whatever they are.
	if err := o.checkWrite(live, m, f); err != nil {
		return err
	}
	for _, file := range f.Files {
		if err := checkPath(live, file.Path); err != nil {
			return err
		}
	}
	return nil
}

// openExisting opens the folder name in root without following a link;
// nil when there is none.
func openExisting(root *dirFD, name string) (*dirFD, error) {
	id, err := root.lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	switch id.mode {
	case fs.ModeDir:
		return root.openDir(name)
	case fs.ModeSymlink:
		return nil, fmt.Errorf("%s is a symbolic link; export never writes through one (remove it or export elsewhere)", root.join(name))
	}
	return nil, fmt.Errorf("%s exists and is not a directory", root.join(name))
}

// checkPath refuses a path below d whose existing components include a
// symbolic link or something that is not a directory (or, at the end, not
// a regular file).
func checkPath(d *dirFD, rel string) error {
	parent, name, err := walkTo(d, rel, false)
	if err != nil || parent == nil {
		return err
	}
	defer parent.close()
	id, err := parent.lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case id.mode == fs.ModeSymlink:
		return fmt.Errorf("%s is a symbolic link; export never writes through one (remove it or export elsewhere)", parent.join(name))
	case id.mode != 0:
		return fmt.Errorf("%s exists and is not a regular file", parent.join(name))
	}
	return nil
}

// walkTo opens the directory holding rel's last component below d, one
// component at a time without following links, creating missing ones
// when create is set. A nil parent without error means a directory on the
// way does not exist.
func walkTo(d *dirFD, rel string, create bool) (parent *dirFD, name string, err error) {
	dirs := strings.Split(rel, "/")
	name = dirs[len(dirs)-1]
	cur := d
	for _, part := range dirs[:len(dirs)-1] {
		next, err := cur.openDir(part)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err = cur.mkdir(part, 0o755); err == nil {
				next, err = cur.openDir(part)
			}
		}
		if cur != d {
			cur.close()
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, name, nil
		}
		if err != nil {
			return nil, name, err
		}
		cur = next
	}
	if cur == d {
		// The caller closes what it gets: hand it a handle of its own.
		cur, err = reopen(d)
	}
	return cur, name, err
}

// reopen is a second handle on d.
func reopen(d *dirFD) (*dirFD, error) {
	r, err := d.openDir(".")
	if err == nil {
		r.path = d.path
	}
	return r, err
}

// readFileAt reads the regular file at rel below d (nil, false when there
// is none), up to max bytes; over reports a larger file.
func readFileAt(d *dirFD, rel string, max int64) (data []byte, found, over bool, err error) {
	parent, name, err := walkTo(d, rel, false)
	if err != nil || parent == nil {
		return nil, false, false, err
	}
	defer parent.close()
	data, over, err = parent.readFile(name, max)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, false, nil
	}
	return data, err == nil, over, err
}

// readMarker reads d's marker; nil when there is none. A marker that is not
// a small regular file, does not decode or lists a path outside the folder
// is an error: a writer will not guess.
func readMarker(d *dirFD) (*Marker, error) {
	b, found, over, err := readFileAt(d, markerFile, maxMarkerBytes)
	name := d.join(markerFile)
	switch {
	case err != nil && strings.Contains(err.Error(), "not a regular file"), over:
		return nil, fmt.Errorf("%s is not a marker this program wrote (not a small regular file); remove it", name)
	case err != nil:
		return nil, err
	case !found:
		return nil, nil
	}
	var m Marker
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s does not decode (%w); remove it, or the folder, by hand", name, err)
	}
	for _, f := range m.Files {
		if !localSlashPath(f) || f == markerFile {
			return nil, fmt.Errorf("%s lists %q, which is not a file inside the folder; fix or remove the marker", name, f)
		}
	}
	return &m, nil
}

// ReadMarkerIn reads the marker of the skill folder at dir, for import:
// nil when it has none, an error when it is not a marker a writer wrote.
func ReadMarkerIn(dir string) (*Marker, error) {
	d, err := openDirRoot(dir)
	if err != nil {
		return nil, err
	}
	defer d.close()
	return readMarker(d)
}

// encodeMarker is the marker file for m and the files of f.
func encodeMarker(m Marker, f Folder) ([]byte, error) {
	m.Files = make([]string, len(f.Files))
	for i, file := range f.Files {
		m.Files[i] = file.Path
	}
	// Every marker records what it wrote, so a file edited since is told
	// from one the writer may replace or remove (ownership.go).
	m.Digests = make(map[string]string, len(f.Files))
	for _, file := range f.Files {
		m.Digests[file.Path] = digest.Of(file.Data)
	}
	slices.Sort(m.Files)
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), err
}

// tempName is a hidden name beside a skill folder for its next version.
func tempName(name string) string {
	var b [8]byte
	rand.Read(b[:])
	return "." + name + ".agent3md-" + hex.EncodeToString(b[:])
}

// writeFolder writes one folder: nothing when every file and the marker
// already hold the right bytes; else the whole folder anew beside it,
// moved into place.
func writeFolder(root *dirFD, f Folder, m Marker, o *WriteOptions, rep *Report) error {
	live, err := openExisting(root, f.Name)
	if err != nil {
		return err
	}
	var old *Marker
	if live != nil {
		defer live.close()
		if old, err = readMarker(live); err != nil {
			return err
		}
	}
	markerData, err := encodeMarker(m, f)
	if err != nil {
		return err
	}
	plan := &folderWrite{f: f, planned: map[string]bool{markerFile: true}, owned: map[string]bool{}}
	for _, file := range f.Files {
		plan.planned[file.Path] = true
	}
	if old != nil && o.owns(old) {
		for _, p := range old.Files {
			plan.owned[p] = true
		}
	}
	changed, err := plan.compare(live, markerData)
	if err != nil {
		return err
	}
	if !changed {
		plan.report(rep)
		return nil
	}
	if err := plan.replace(root, live, markerData); err != nil {
		return err
	}
	plan.report(rep)
	return nil
}

// folderWrite is one folder's write in progress.
type folderWrite struct {
	f       Folder
	planned map[string]bool // paths written, the marker included
	owned   map[string]bool // paths the previous marker of the same agent lists
	states  []string        // per file of f: "created", "replaced" or "unchanged"
	removed []string        // owned files not written again that were there
	carried []string        // entries moved from the old folder into the new
	// keepClashes leaves an entry carry cannot move where it is instead
	// of failing (RecoverStaged).
	keepClashes bool
}

// compare reads what the folder holds now: each file's state, the owned
// files to remove, and whether anything changes at all.
func (w *folderWrite) compare(live *dirFD, markerData []byte) (changed bool, err error) {
	w.states = make([]string, len(w.f.Files))
	for i, file := range w.f.Files {
		w.states[i] = "created"
		if live == nil {
			continue
		}
		old, found, _, err := readFileAt(live, file.Path, int64(len(file.Data)))
		switch {
		case err != nil:
			return false, err
		case found && bytes.Equal(old, file.Data):
			w.states[i] = "unchanged"
		case found:
			w.states[i] = "replaced"
		}
	}
	for _, p := range slices.Sorted(mapKeys(w.owned)) {
		if w.planned[p] || live == nil {
			continue
		}
		if _, found, _, err := readFileAt(live, p, 0); err != nil {
			return false, err
		} else if found {
			w.removed = append(w.removed, p)
		}
	}
	changed = live == nil || len(w.removed) > 0 || slices.ContainsFunc(w.states, func(s string) bool { return s != "unchanged" })
	if !changed {
		old, found, _, err := readFileAt(live, markerFile, int64(len(markerData)))
		if err != nil {
			return false, err
		}
		changed = !found || !bytes.Equal(old, markerData)
	}
	return changed, nil
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (w *folderWrite) report(rep *Report) {
	for i, file := range w.f.Files {
		p := w.f.Name + "/" + file.Path
		switch w.states[i] {
		case "created":
			rep.Created = append(rep.Created, p)
		case "replaced":
			rep.Replaced = append(rep.Replaced, p)
		default:
			rep.Unchanged = append(rep.Unchanged, p)
		}
	}
	for _, p := range w.removed {
		rep.Removed = append(rep.Removed, w.f.Name+"/"+p)
	}
}
