package loader

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/filekind"
	"github.com/agent3md/agent3md/internal/hashidx"
	"github.com/agent3md/agent3md/skillsdir/export"
)

// state is one scan of the file: the catalog, the open file it came from and
// the lookup tables built from it. Everything but f is immutable once built;
// f is only read through ReadAt while Agent.mu is read-locked.
type state struct {
	f *os.File
	// mem maps f (fi.Size() bytes, read-only), or is nil: bodies are then
	// read with pread (mapped.go).
	mem []byte
	fi  os.FileInfo // f's Stat, taken before the scan
	gen uint64      // 1 for the first scan, +1 per re-scan
	// cached is true when the catalog was decoded from the catalog cache
	// rather than scanned.
	cached bool

	cat  *agentfile.Catalog
	info *agentfile.AgentInfo
	// folder is set when the agent is served from skill folders
	// (OpenFolders): bodies come from there, and f and fi are nil.
	folder *folderState

	names  []string               // skill names in source order (byName's keys)
	byName *hashidx.Index[string] // skill name -> index in info.Skills (names are unique)
	// byKey maps agentfile.NameKey (the NFC form) of each skill name
	// that is not its own key to the skill's index: lookup falls back to
	// it and to byName with the key, so a name answers however its
	// accents are encoded (docs/format.md §8). nil when every name is
	// its own key, as every ASCII name is.
	byKey   map[string]int
	byPlane []int   // plane index -> skill index, -1 for the identity
	deps    [][]int // per skill: linked skills in body order, as written
	// slugs (per skill: its Agent Skills name) and bySlug (slug -> index
	// in info.Skills) are built on first use: only SKILL.md rendering and
	// skill:// names need them. Use slugList and slugIndex.
	slugsOnce sync.Once
	slugs     []string
	bySlug    map[string]int
	// skills is the body-less catalog, built on first use: a server
	// that only routes never needs it, and at 100,000 skills it is 16 MB.
	skillsOnce sync.Once
	skills     []SkillInfo
}

// failedScan is a re-scan that did not succeed: the file as stat'ed before
// it, and why.
type failedScan struct {
	fi  os.FileInfo
	err error
}

// scan opens path, refuses anything but a regular file, and scans it.
func scan(path string, opts *Options, gen uint64) (*state, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	po := opts.Parse
	po.File = path
	cat, cached, err := loadCatalog(f, &po, opts.CatalogCache)
	if err != nil {
		f.Close()
		return nil, err
	}
	st, err := build(cat, cat.Agent(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	st.f, st.fi, st.gen, st.cached = f, fi, gen, cached
	st.mem = mapOf(f, fi.Size())
	return st, nil
}

// openRegular opens path for reading, refusing anything but a regular
// file, even one swapped in after the check: opening a named pipe would
// block until a writer appears (filekind.Open).
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := filekind.Open(path)
	var nr *filekind.NotRegularError
	if errors.As(err, &nr) {
		return nil, nil, fmt.Errorf("open agent file: %s is %s: %w; pass the path of an agent.3md file", path, filekind.Of(nr.Mode), ErrNotRegular)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open agent file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open agent file: %w", err)
	}
	return f, fi, nil
}

// build derives the lookup tables from a catalog. It refuses a catalog in
// which two skills answer to one name (names equal in NFC form count as
// one, docs/format.md §8), or a name is not valid UTF-8 (file
// names it in the error): every command opens agents through here, so none
// serves such a file, where a route could pick one skill and a fetch by
// name the other, or a listed name could never be fetched.
func build(cat *agentfile.Catalog, info *agentfile.AgentInfo, file string) (*state, error) {
	n := len(info.Skills)
	st := &state{
		cat:     cat,
		info:    info,
		byName:  hashidx.New[string](n),
		byPlane: make([]int, len(cat.Planes)),
		deps:    make([][]int, n),
	}
	for i := range st.byPlane {
		st.byPlane[i] = -1
	}
	for i := range info.Skills {
		s := &info.Skills[i]
		if !utf8.ValidString(s.Name) {
			return nil, info.BadName(cat, file, i)
		}
		if prev, dup := st.byName.Add(s.Name, false); dup {
			return nil, info.NameClash(cat, file, prev, i)
		}
		if prev, dup := st.addKey(s.Name, i); dup {
			return nil, info.NameClash(cat, file, prev, i)
		}
		if s.Plane >= 0 && s.Plane < len(st.byPlane) {
			st.byPlane[s.Plane] = i
		}
	}
	for i := range info.Skills {
		for _, z := range info.Skills[i].Deps {
			if j, ok := st.skillAt(z); ok {
				st.deps[i] = append(st.deps[i], j)
			}
		}
	}
	st.names = st.byName.Keys()
	return st, nil
}

func (st *state) buildInfos() []SkillInfo {
	out := make([]SkillInfo, len(st.info.Skills))
	for i := range st.info.Skills {
		s := &st.info.Skills[i]
		deps := make([]string, 0, len(st.deps[i]))
		for _, j := range unique(st.deps[i]) {
			deps = append(deps, st.names[j])
		}
		tool := ""
		if s.HasTool {
			tool = s.Tool
		}
		out[i] = SkillInfo{
			Name:        s.Name,
			Z:           s.Z,
			Description: st.cat.Planes[s.Plane].Description,
			Triggers:    nonNil(s.Triggers),
			Inputs:      nonNil(s.Inputs),
			Tool:        tool,
			Cost:        s.Cost,
			Deps:        deps,
			Slug:        st.slugList()[i],
		}
	}
	return out
}

// unique returns xs without repeats, first occurrences in order. Short
// lists (the usual case) are checked by scanning; long ones with a set, so
// a body with thousands of links stays linear.
func unique(xs []int) []int {
	out := make([]int, 0, len(xs))
	if len(xs) <= 16 {
		for _, x := range xs {
			if !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
		return out
	}
	seen := make(map[int]bool, len(xs))
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func (st *state) slugList() []string {
	st.slugsOnce.Do(func() {
		if st.folder != nil {
			// A folder's name is already a valid, unique Agent Skills
			// name: it is its own slug.
			st.bySlug = make(map[string]int, len(st.names))
			for i := range st.info.Skills {
				st.bySlug[st.info.Skills[i].Name] = i
			}
			st.slugs = make([]string, len(st.info.Skills))
			for i := range st.info.Skills {
				st.slugs[i] = st.info.Skills[i].Name
			}
			return
		}
		st.slugs, st.bySlug = export.AssignSlugs(st.info.Skills)
	})
	return st.slugs
}

func (st *state) slugIndex() map[string]int {
	st.slugList()
	return st.bySlug
}

// skillInfos returns a fresh copy of the catalog slice.
func (st *state) skillInfos() []SkillInfo {
	st.skillsOnce.Do(func() { st.skills = st.buildInfos() })
	return append(make([]SkillInfo, 0, len(st.skills)), st.skills...)
}

// skillAt returns the index of the skill at z: the catalog already maps z
// to a plane, and byPlane maps planes to skills.
func (st *state) skillAt(z float64) (int, bool) {
	p := st.cat.PlaneIndex(z)
	if p < 0 || p >= len(st.byPlane) || st.byPlane[p] < 0 {
		return -1, false
	}
	return st.byPlane[p], true
}

// lookup returns the index of the skill called name, or an
// *UnknownSkillError carrying the nearest names.
func (st *state) lookup(name string) (int, error) {
	if i, ok := st.find(name); ok {
		return i, nil
	}
	return -1, &UnknownSkillError{Name: name, Closest: closest(st.names, name, 3)}
}

// find is lookup without the error: the exact name, else its NFC form.
func (st *state) find(name string) (int, bool) {
	if i, ok := st.byName.Find(name); ok {
		return i, true
	}
	return st.findComposed(name)
}

// addKey records skill i's name under its NFC key and reports the
// earlier skill whose name has the same key, if any (the exact same name
// byName.Add has already refused). Two cases: i's name is its own key
// and an earlier name was not (byKey has it), or i's name is not its
// own key and an earlier name is that key (byName has it) or shares it
// (byKey has it).
func (st *state) addKey(name string, i int) (prev int, dup bool) {
	k := agentfile.NameKey(name)
	if j, ok := st.byKey[k]; ok {
		return j, true
	}
	if k == name {
		return -1, false
	}
	if j, ok := st.byName.Find(k); ok {
		return j, true
	}
	if st.byKey == nil {
		st.byKey = map[string]int{}
	}
	st.byKey[k] = i
	return -1, false
}

// findComposed finds a skill whose name is name with its accents encoded
// another way: "café" typed as one character é or as e and a combining
// accent is the same name to a person, and a client's keyboard,
// clipboard or file system (macOS writes names decomposed) picks either.
// Names are compared by their NFC form, which build keeps unique; the
// exact bytes are tried first (lookup), and the name served is always
// the one the file writes.
func (st *state) findComposed(name string) (int, bool) {
	k := agentfile.NameKey(name)
	if i, ok := st.byKey[k]; ok {
		return i, true
	}
	if k == name {
		return -1, false // asked in NFC: byName had it if any name is k
	}
	return st.byName.Find(k)
}

// identityBody reads the identity plane's body; "" when there are no planes.
func (st *state) identityBody() (string, error) {
	if st.info.Identity < 0 || st.info.Identity >= len(st.cat.Planes) {
		return "", nil
	}
	return st.body(st.info.Identity)
}

// close releases the state's open file, if it has one.
func (st *state) close() error {
	if st.f == nil {
		return nil
	}
	if st.mem != nil {
		unmapFile(st.mem)
		st.mem = nil
	}
	return st.f.Close()
}
