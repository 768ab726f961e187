package loader

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/filekind"
	"github.com/agent3md/agent3md/skillsdir/export"
)

// Options configures Open. A nil *Options means defaults.
type Options struct {
	// Parse bounds the scan; Parse.File is set to the opened path by Open.
	// Zero limits take agentfile's defaults.
	Parse agentfile.Options
	// Recheck bounds how often reads stat the path to notice that the file
	// was replaced (renamed over) or changed size or time: at most once per
	// Recheck (default DefaultRecheck); a negative value checks on every
	// read. Between checks a replaced file is still served from the old open
	// file, whose bytes every read verifies by CRC, so an edit in place
	// that touches a body is noticed at once whatever this is.
	Recheck time.Duration
	// CatalogCache is a directory where the scanned catalog is kept, keyed
	// by the file's SHA-256 and the limits in force, so that the next Open
	// of the same bytes decodes it (~5x faster than scanning) instead of
	// scanning. "" disables it. A damaged or foreign entry is ignored and
	// rewritten, never trusted: it must decode, pass its checksum and
	// name the file's hash.
	CatalogCache string
	// NoRescan pins the Agent to the one version of the file it scanned:
	// reads never stat or re-scan the path, and a body whose bytes no
	// longer match that scan (a checksum mismatch or short read, after an
	// edit in place) fails with an error wrapping ErrStale and ErrChanged
	// instead of being served from a newer scan. A file replaced by a
	// rename or unlinked keeps serving its old bytes from the open file.
	// A server that reloads whole versions itself (docs/reload.md)
	// sets it, so that routing, listing and reading never answer from two
	// versions; Recheck is then unused. Default false: the Agent follows
	// the file by re-scanning it, as the CLI wants.
	NoRescan bool
	// Settle is how long OpenStable waits for the file to be quiet: its
	// change time must be at least this old before a scan counts (default
	// DefaultSettle). Only OpenStable reads it.
	Settle time.Duration
	// StableTries bounds how many scans OpenStable makes of a file that
	// keeps changing before it gives up with ErrUnsettled (default
	// DefaultStableTries). Only OpenStable reads it.
	StableTries int
}

// DefaultRecheck is the default Options.Recheck: a stat of the path costs
// more than the rest of a body read, and a replaced file seen 50 ms late is
// still served consistently.
const DefaultRecheck = 50 * time.Millisecond

// ErrClosed is returned by every operation that needs the file after Close.
var ErrClosed = errors.New("loader: agent is closed")

// ErrNotRegular is wrapped by Open when the path is not a regular file (a
// directory, a device, a named pipe, a socket). It is filekind's, so one
// errors.Is test holds for every package that refuses such a path.
var ErrNotRegular = filekind.ErrNotRegular

// ErrChanged is wrapped by body reads when the file changed on disk and
// still disagrees with its catalog after one re-scan. The body that was
// asked for is never returned in that case.
var ErrChanged = errors.New("agent file changed while it was being read")

// Agent is an agent file opened for serving: its body-less catalog plus the
// open file, from which bodies are read on demand and verified against the
// catalog's CRC-32C. When the file changes on disk (edited in place,
// truncated, or replaced by a rename) the next read re-scans it once and
// swaps the new catalog in atomically, unless Options.NoRescan pins it to
// one version. Safe for concurrent use.
type Agent struct {
	path string
	opts Options

	// reload serialises re-scans so that concurrent readers that notice the
	// same change scan the file once.
	reload sync.Mutex

	// mu guards st, closed and failed. Readers hold it (read-locked) for as
	// long as they use st.f, so a swap never closes a file under a reader.
	mu     sync.RWMutex
	st     *state
	closed bool
	// failed remembers the last re-scan that failed (the file as it was
	// stat'ed then), so a broken edit is not re-parsed on every read.
	failed *failedScan

	// start and lastCheck (nanoseconds since start) rate-limit moved.
	start     time.Time
	lastCheck atomic.Int64

	// folders is set for an Agent served from skill folders (OpenFolders):
	// what a re-scan scans.
	folders *folderConfig

	// afterRescan, when set (by tests), runs after each successful re-scan.
	afterRescan func()
}

// Manifest is the agent's body-less description.
type Manifest struct {
	Name     string      `json:"name"`
	Model    string      `json:"model"`
	Tools    []string    `json:"tools"`
	Persona  string      `json:"persona,omitempty"`
	Identity string      `json:"identity"` // the identity plane's body
	Skills   []SkillInfo `json:"skills"`
}

// SkillInfo is one skill in the body-less catalog.
type SkillInfo struct {
	Name        string            `json:"name"`
	Z           float64           `json:"z"`
	Description string            `json:"description"`
	Triggers    []string          `json:"triggers"`
	Inputs      []agentfile.Input `json:"inputs"`
	Tool        string            `json:"tool,omitempty"`
	Cost        string            `json:"cost,omitempty"`
	// Deps are the names of the skills linked from the body with
	// [[z=<digits>]] links, in body order, each once; links to the identity
	// or to missing planes are left out.
	Deps []string `json:"deps"`
	// Slug is the skill's Agent Skills name (see SkillMD): lowercase ASCII,
	// valid and unique within the agent. Not part of the JSON catalog.
	Slug string `json:"-"`
}

// Resolved is one skill of a resolve chain with its body.
type Resolved struct {
	Name string
	Z    float64
	Body string
}

// UnknownSkillError is returned for a skill name or z the agent lacks.
type UnknownSkillError struct {
	// Name is the name asked for, or "z=<z>" for a lookup by position.
	Name    string
	Closest []string // up to three nearest names, best first
}

// Error names the skill and, when there are any, the closest names, in the
// reference server's "(closest: a, b)" form.
func (e *UnknownSkillError) Error() string {
	if len(e.Closest) == 0 {
		return "unknown skill: " + e.Name
	}
	return fmt.Sprintf("unknown skill: %s (closest: %s)", e.Name, strings.Join(e.Closest, ", "))
}

// Open scans the agent file at path and keeps it open for body reads. It
// refuses a path that is not a regular file, and returns the scan's
// *agentfile.ParseError (with its line, and for a bound the flag that raises
// it) when the file does not parse, or one named agentfile.DuplicateSkill,
// naming both lines, when two skills answer to one name.
func Open(path string, opts *Options) (*Agent, error) {
	a := &Agent{path: path, start: time.Now()}
	if opts != nil {
		a.opts = *opts
	}
	if a.opts.Recheck == 0 {
		a.opts.Recheck = DefaultRecheck
	}
	a.opts.Parse.File = path
	st, err := scan(path, &a.opts, 1)
	if err != nil {
		return nil, err
	}
	a.st = st
	return a, nil
}

// CatalogCached reports whether the catalog in force was decoded from
// Options.CatalogCache instead of scanned.
func (a *Agent) CatalogCached() bool { return a.current().cached }

// Pinned reports whether the Agent serves the one version it scanned
// (Options.NoRescan, or FolderOptions.NoRescan): its bodies and files then
// never change while it is open, so a caller may keep what it read.
func (a *Agent) Pinned() bool { return a.opts.NoRescan }

// Close releases the file. It is idempotent; later reads return ErrClosed.
func (a *Agent) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.closed = true
	return a.st.close()
}

// current returns the state in force without holding any lock afterwards.
// The catalog data it carries is immutable, so callers may keep using it;
// only st.f needs the read lock (see view).
func (a *Agent) current() *state {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.st
}

// Catalog returns the scanned catalog (the one in force after any re-scan).
func (a *Agent) Catalog() *agentfile.Catalog { return a.current().cat }

// Info returns the agent3md/1 reading of the catalog.
func (a *Agent) Info() *agentfile.AgentInfo { return a.current().info }

// Scanned returns the catalog in force and its agent3md/1 reading, both
// from the same scan (calling Catalog and Info in turn could straddle a
// re-scan). Neither may be modified.
func (a *Agent) Scanned() (*agentfile.Catalog, *agentfile.AgentInfo) {
	st := a.current()
	return st.cat, st.info
}

// SkillNames returns the skill names in source order.
func (a *Agent) SkillNames() []string { return slices.Clone(a.current().names) }

// Path returns the file path the agent was opened from.
func (a *Agent) Path() string { return a.path }

// Manifest returns the body-less manifest with the identity body.
func (a *Agent) Manifest(ctx context.Context) (*Manifest, error) {
	var m *Manifest
	err := a.view(ctx, func(st *state) error {
		id, err := st.identityBody()
		if err != nil {
			return err
		}
		m = &Manifest{
			Name:     st.info.Name,
			Model:    st.info.Model,
			Tools:    nonNil(st.info.Tools),
			Persona:  st.info.Persona,
			Identity: id,
			Skills:   st.skillInfos(),
		}
		return nil
	})
	return m, err
}

// Skills returns the body-less skill catalog in source order. The slice is
// the caller's; the strings and inner slices are shared and must not be
// modified.
func (a *Agent) Skills() []SkillInfo { return a.current().skillInfos() }

// SkillCount returns len(Skills()) without building that catalog: it is
// built on first use and kept (about 30 MB at 100,000 skills, slugs
// included), so a server that only needs the count must not call Skills
// while its routing index is being built, where that memory would raise
// the cold start's peak.
func (a *Agent) SkillCount() int { return len(a.current().info.Skills) }

// Skill returns a skill by name. Names are matched exactly, and are unique:
// Open refuses a file in which two skills share a name.
func (a *Agent) Skill(name string) (*agentfile.Skill, error) {
	st := a.current()
	i, err := st.lookup(name)
	if err != nil {
		return nil, err
	}
	return &st.info.Skills[i], nil
}

// SkillByZ returns a skill by plane position. The identity plane is not a
// skill.
func (a *Agent) SkillByZ(z float64) (*agentfile.Skill, error) {
	st := a.current()
	i, ok := st.skillAt(z)
	if !ok {
		return nil, &UnknownSkillError{Name: "z=" + export.FormatZ(z)}
	}
	return &st.info.Skills[i], nil
}

// SkillBySlug returns a skill by its Agent Skills name (SkillInfo.Slug), the
// name used in skill:// URIs.
func (a *Agent) SkillBySlug(slug string) (*agentfile.Skill, error) {
	st := a.current()
	i, ok := st.slugIndex()[slug]
	if !ok {
		return nil, &UnknownSkillError{Name: slug, Closest: closest(st.slugList(), slug, 3)}
	}
	return &st.info.Skills[i], nil
}

// Slug returns the Agent Skills name of the skill called name.
func (a *Agent) Slug(name string) (string, error) {
	st := a.current()
	i, err := st.lookup(name)
	if err != nil {
		return "", err
	}
	return st.slugList()[i], nil
}

// Body returns a skill's body, read from the file and verified against the
// catalog's CRC-32C (CRLF normalised to LF; a lone CR is kept).
func (a *Agent) Body(ctx context.Context, name string) (string, error) {
	var body string
	err := a.view(ctx, func(st *state) error {
		i, err := st.lookup(name)
		if err != nil {
			return err
		}
		body, err = st.body(st.info.Skills[i].Plane)
		return err
	})
	return body, err
}

// IdentityBody returns the identity plane's body ("" for a document with no
// planes).
func (a *Agent) IdentityBody(ctx context.Context) (string, error) {
	var body string
	err := a.view(ctx, func(st *state) (err error) {
		body, err = st.identityBody()
		return err
	})
	return body, err
}

// Closest returns up to n skill names nearest to name, best first: a
// case-insensitive edit distance with a bonus for names that start with,
// or contain, what was asked for. Names too far from name to be a plausible
// typo are left out, so the result may be empty.
func (a *Agent) Closest(name string, n int) []string {
	return closest(a.current().names, name, n)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
