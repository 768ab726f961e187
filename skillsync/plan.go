package skillsync

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agent3md/agent3md/internal/digest"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// Planning compares what the source lists with what DIR holds, before
// anything is fetched (docs/sync.md §3): a skill whose files all have
// the digests the server lists, in a folder this source wrote, is
// unchanged and not fetched at all.

// step is one listed skill's fate.
type step struct {
	r     *remote
	found *folderwrite.Found
	// local is the digest of each file on disk now, when the folder is
	// this source's (or forced).
	local map[string]string
	fetch bool
	// refused says why the skill is left as it is.
	refused string
}

// plan is one pass's decisions.
type plan struct {
	steps     []*step
	unchanged []string
	drop      []*folderwrite.Found // this source's folders no skill is listed for
	refused   []Refusal
}

// makePlan decides per skill; it reads DIR but writes nothing.
func makePlan(l *listing, dir string, o *Options, wo *folderwrite.WriteOptions, lim *Limits) (*plan, error) {
	found, err := folderwrite.Survey(dir)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	byName := map[string]*folderwrite.Found{}
	for _, f := range found {
		byName[f.Name] = f
	}
	p := &plan{refused: slices.Clone(l.unlisted)}
	listed := map[string]bool{}
	var steps []*step
	for _, r := range top(l.skills, p) {
		listed[r.Name] = true
		if r.Problem != "" {
			p.refused = append(p.refused, Refusal{Skill: r.Name, Reason: r.Problem})
			continue
		}
		f := byName[r.Name]
		if f == nil {
			f = &folderwrite.Found{Name: r.Name}
		}
		steps = append(steps, &step{r: r, found: f})
	}
	// Hashing DIR's files is most of a no-op sync: a few at once.
	eachLimited(context.Background(), planWorkers, steps, func(s *step) error {
		s.decide(dir, o, wo, lim)
		return nil
	})
	for _, s := range steps {
		switch {
		case s.refused != "":
			p.refused = append(p.refused, Refusal{Skill: s.r.Name, Reason: s.refused})
		case s.fetch:
			p.steps = append(p.steps, s)
		default:
			p.unchanged = append(p.unchanged, s.r.Name)
		}
	}
	for _, r := range l.skills {
		listed[r.Name] = true // nested ones too: still served
	}
	for _, f := range found {
		if !listed[f.Name] && f.Kind == folderwrite.FoundDir && f.Owned(wo) {
			p.drop = append(p.drop, f)
		}
	}
	return p, nil
}

// top is the skills to write as folders of their own: not nested inside
// another listed skill (whose folder carries them), and not sharing a
// name with another (both are refused).
func top(skills []*remote, p *plan) []*remote {
	byName := map[string][]*remote{}
	for _, r := range skills {
		byName[r.Name] = append(byName[r.Name], r)
	}
	nested := map[*remote]bool{}
	for _, a := range skills {
		for _, f := range a.Files {
			if f.Path == "SKILL.md" || path.Base(f.Path) != "SKILL.md" {
				continue
			}
			for _, b := range byName[path.Base(path.Dir(f.Path))] {
				if b != a && nestedIn(b, a, f) {
					nested[b] = true
				}
			}
		}
	}
	var out []*remote
	for _, r := range skills {
		if nested[r] {
			continue
		}
		if n := byName[r.Name]; len(n) > 1 {
			var uris []string
			for _, o := range n {
				uris = append(uris, o.URI)
			}
			r.refuse("%d listed skills are named %s (%s); a folder holds one", len(n), r.Name, strings.Join(uris, ", "))
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// nestedIn reports whether b is the skill a lists as file f: its root is
// inside a's, or its SKILL.md has f's digest.
func nestedIn(b, a *remote, f remoteFile) bool {
	if strings.HasPrefix(b.Root, a.Root+"/") {
		return true
	}
	for _, g := range b.Files {
		if g.Path == "SKILL.md" {
			return g.Digest != "" && g.Digest == f.Digest
		}
	}
	return false
}

// planWorkers is how many skills' folders are read at once.
const planWorkers = 4

// decide sets the step's fate from what DIR holds by the skill's name.
func (s *step) decide(dir string, o *Options, wo *folderwrite.WriteOptions, lim *Limits) {
	f := s.found
	shown := filepath.Join(dir, f.Name)
	switch {
	case f.Kind == folderwrite.FoundNone:
		s.fetch = true
		return
	case f.Kind == folderwrite.FoundLink:
		s.refused = shown + " is a symbolic link; sync never writes through one (remove it, or sync elsewhere)"
		return
	case f.Kind == folderwrite.FoundOther:
		s.refused = shown + " exists and is not a folder"
		return
	case f.MarkerErr != nil:
		s.refused = f.MarkerErr.Error()
		return
	case !f.Owned(wo) && !o.Force:
		s.refused = notOurs(shown, f, wo)
		return
	}
	wanted := make([]string, len(s.r.Files))
	for i, rf := range s.r.Files {
		wanted[i] = rf.Path
	}
	paths := slices.Clone(wanted)
	for _, p := range f.Files {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	local, err := folderwrite.HashFiles(dir, f.Name, paths, lim.MaxFileBytes)
	if err != nil {
		s.refused = err.Error()
		return
	}
	s.local = local
	// The writer's rules (skillsdir's ownership.go): a file of the
	// user's where the new version writes, or one sync wrote and the
	// user edited, is not replaced without --force.
	if err := f.CheckWrite(dir, wo, wanted, local); err != nil {
		s.refused = err.Error()
		return
	}
	s.fetch = !(f.Owned(wo) && s.r.Verified && s.matches(nil))
}

// notOurs says whose a folder is.
func notOurs(shown string, f *folderwrite.Found, wo *folderwrite.WriteOptions) string {
	switch {
	case !f.Marked:
		return shown + " was not written by agent3md sync (it has no marker); move it away, or pass --force to replace it"
	case f.Origin != "":
		return fmt.Sprintf("%s was synced from %s, not %s; pass --force to replace it", shown, f.Origin, wo.Origin)
	}
	return fmt.Sprintf("%s was written by 'agent3md export' of agent %q; pass --force to replace it", shown, f.Agent)
}

// matches reports whether DIR's folder holds exactly the skill: the files
// the marker lists are the skill's, each with its digest (the server's,
// or the bytes read when data is given).
func (s *step) matches(data [][]byte) bool {
	if len(s.found.Files) != len(s.r.Files) {
		return false
	}
	for i, rf := range s.r.Files {
		want := rf.Digest
		if data != nil {
			want = digest.Of(data[i])
		}
		if want == "" || s.local[rf.Path] != want || !slices.Contains(s.found.Files, rf.Path) {
			return false
		}
	}
	return true
}
