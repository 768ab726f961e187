package skillsdir

import (
	"cmp"
	"fmt"
	"io"
	"mime"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// fileWalk lists one skill folder's files.
type fileWalk struct {
	s      *Skill
	o      *Options
	c      *checker
	nested []string // slash paths of sub-folders holding a SKILL.md
	full   bool     // MaxFilesPerSkill reached
	root   *os.Root // the skill folder, opened on the first symlink
}

// walk lists the files below real/rel. Hidden entries are skipped (a
// skill's .env is not meant for a model), directory symlinks are not
// followed (no loops, no second path to a file) and file symlinks are
// listed only when they resolve inside the skill. Entries are read in
// batches and the walk stops once the list is full, so a folder holding a
// million files costs a batch, not a million entries.
//
// Folders are walked breadth first, each batch in name order: when the
// list is cut at MaxFilesPerSkill, the files kept are those nearest the
// SKILL.md (scripts/, references/), not whatever a node_modules the
// directory order happens to put first, and the same ones on every
// machine.
func (w *fileWalk) walk(real, rel string, depth int) {
	queue := []pendingDir{{rel, depth}}
	for len(queue) > 0 && !w.full {
		d := queue[0]
		queue = queue[1:]
		sub := w.walkDir(real, d.rel, d.depth)
		if len(queue)+len(sub) > maxPendingDirs {
			w.warn(d.rel, RuleUnreadable, fmt.Sprintf("more than %d folders wait to be read in this skill; the ones below this folder are not served", maxPendingDirs))
			continue
		}
		queue = append(queue, sub...)
	}
}

// pendingDir is a folder a walk has yet to read.
type pendingDir struct {
	rel   string
	depth int
}

// maxPendingDirs bounds the folders a breadth-first walk holds at once.
const maxPendingDirs = 1 << 16

// walkDir lists the files of one folder and returns its subfolders.
func (w *fileWalk) walkDir(real, rel string, depth int) []pendingDir {
	f, err := os.Open(filepath.Join(real, filepath.FromSlash(rel)))
	if err != nil {
		w.warn(rel, RuleUnreadable, "cannot read folder: "+err.Error())
		return nil
	}
	defer f.Close()
	var sub []pendingDir
	for !w.full {
		entries, err := f.ReadDir(dirBatch)
		slices.SortFunc(entries, func(a, b os.DirEntry) int { return cmp.Compare(a.Name(), b.Name()) })
		sub = w.entries(real, rel, depth, entries, sub)
		if err != nil {
			if err != io.EOF {
				w.warn(rel, RuleUnreadable, "cannot read folder: "+err.Error())
			}
			break
		}
	}
	return sub
}

// dirBatch is how many directory entries a walk reads at a time.
const dirBatch = 256

func (w *fileWalk) entries(real, rel string, depth int, entries []os.DirEntry, sub []pendingDir) []pendingDir {
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if !utf8.ValidString(name) {
			// A manifest, skills/list and resources/list name files in
			// JSON text, which cannot carry these bytes: the name there
			// would read otherwise than the file's URI. One name per file.
			w.warn(path.Join(rel, name), RuleFileName, "name is not valid UTF-8, which the JSON of a manifest or listing cannot carry; it is not served; rename it in UTF-8 (convmv -f latin1 -t utf8 does that)")
			continue
		}
		if name == "SKILL.md" {
			if rel == "" {
				continue // listed by scanSkill
			}
			w.nested = append(w.nested, rel)
		}
		p := path.Join(rel, name)
		switch t := e.Type(); {
		case t.IsDir():
			if depth+1 >= maxFileDepth {
				w.warn(p, RuleUnreadable, fmt.Sprintf("folder is more than %d levels deep; its files are not served", maxFileDepth))
				continue
			}
			sub = append(sub, pendingDir{p, depth + 1})
		case t.IsRegular():
			fi, err := e.Info()
			if err != nil {
				continue // removed meanwhile
			}
			w.add(p, fi)
		case t&os.ModeSymlink != 0:
			w.symlink(real, p)
		default:
			w.warn(p, RuleSpecialFile, "a device, FIFO or socket is never served")
		}
	}
	return sub
}

// symlink lists a file symlink when it resolves inside the skill the way
// a read will resolve it: through an os.Root on the skill folder, which
// refuses symlinks that leave it or are absolute.
func (w *fileWalk) symlink(real, p string) {
	if w.root == nil {
		r, err := os.OpenRoot(real)
		if err != nil {
			w.warn(p, RuleUnreadable, "cannot open the skill folder: "+err.Error())
			return
		}
		w.root = r
	}
	fi, err := w.root.Stat(filepath.FromSlash(p))
	switch {
	case err != nil:
		w.warn(p, RuleSymlinkEscape, "symlink leaves the skill folder, is absolute or does not resolve; it is never served")
	case fi.IsDir():
		w.warn(p, RuleSpecialFile, "a symlink to a folder is not followed; its files are not served")
	case !fi.Mode().IsRegular():
		w.warn(p, RuleSpecialFile, "symlink to a device, FIFO or socket is never served")
	default:
		w.add(p, fi)
	}
}

func (w *fileWalk) add(p string, fi os.FileInfo) {
	if !readable(fi) {
		// Listed, it would fail every manifest of the skill, and with
		// it skills/list and resources/list.
		w.warn(p, RuleUnreadable, fmt.Sprintf("file cannot be read by this user (mode %04o); it is not served; make it readable (chmod a+r) or move it out of the skill", fi.Mode().Perm()))
		return
	}
	if fi.Size() > w.o.MaxFileBytes {
		w.warn(p, RuleFileTooLarge, fmt.Sprintf("file has %d bytes, over MaxFileBytes (%d); it is not served", fi.Size(), w.o.MaxFileBytes))
		return
	}
	if len(w.s.Files) >= w.o.MaxFilesPerSkill {
		if !w.full {
			w.full, w.s.Truncated = true, true
			w.warn(".", RuleTooManyFiles, fmt.Sprintf("skill has more than %d files (MaxFilesPerSkill); only the first are served", w.o.MaxFilesPerSkill))
		}
		return
	}
	w.s.Files = append(w.s.Files, File{Path: p, Size: fi.Size(), MIME: mimeByExt(p), sig: sigOf(fi)})
	w.s.Bytes += fi.Size()
}

func (w *fileWalk) warn(p, rule, msg string) {
	w.c.out = append(w.c.out, newFinding(rule, w.c.skill, filepath.Join(w.s.Dir, filepath.FromSlash(p)), 0, msg))
}

// finish sorts the list and checks the skill's total size.
func (w *fileWalk) finish() {
	if w.root != nil {
		w.root.Close()
	}
	s := w.s
	slices.SortFunc(s.Files, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	s.Files = slices.Clip(s.Files)
	s.sums = make([]atomic.Pointer[[32]byte], len(s.Files))
	if s.Bytes > w.o.MaxSkillBytes {
		w.warn(".", RuleSkillTooLarge, fmt.Sprintf("skill files total %d bytes, over MaxSkillBytes (%d); hosts may refuse it", s.Bytes, w.o.MaxSkillBytes))
	}
}

// mimeTypes are the types of the files skills usually hold, fixed here so
// a listing does not depend on the machine's mime.types.
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".bash": "text/x-shellscript",
	".js": "text/javascript", ".mjs": "text/javascript", ".ts": "text/x-typescript",
	".json": "application/json", ".yaml": "application/yaml", ".yml": "application/yaml",
	".toml": "application/toml", ".xml": "application/xml", ".xsd": "application/xml",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".csv": "text/csv",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".svg": "image/svg+xml", ".webp": "image/webp", ".ico": "image/x-icon",
	".pdf": "application/pdf", ".zip": "application/zip",
	".ttf": "font/ttf", ".otf": "font/otf", ".woff": "font/woff", ".woff2": "font/woff2",
	".go": "text/x-go", ".rb": "text/x-ruby", ".rs": "text/x-rust", ".java": "text/x-java",
	".c": "text/x-c", ".h": "text/x-c", ".sql": "application/sql",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}

// Fallback MIME types of a file whose extension says nothing.
const (
	mimeBinary = "application/octet-stream"
	mimeText   = "text/plain"
)

// interned keeps one copy of each MIME string the system table returns.
var interned sync.Map

// mimeByExt is the file's type by extension: the table above, then the
// system's, then application/octet-stream. Parameters (charset) are
// dropped: they describe an encoding the bytes may not have.
func mimeByExt(p string) string {
	ext := strings.ToLower(path.Ext(p))
	if t, ok := mimeTypes[ext]; ok {
		return t
	}
	if ext == "" {
		return mimeBinary
	}
	t := mime.TypeByExtension(ext)
	if t == "" {
		return mimeBinary
	}
	if mt, _, err := mime.ParseMediaType(t); err == nil {
		t = mt
	}
	v, _ := interned.LoadOrStore(t, t)
	return v.(string)
}
