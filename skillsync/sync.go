package skillsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
	"github.com/agent3md/agent3md/skillsdir/skillmd"
)

// Sync copies the source's skills into opts.Dir once: discover, plan,
// fetch what changed, verify, write each skill whole, remove what this
// source wrote and no longer serves (docs/sync.md). The error is for
// what stops the whole sync (the source cannot be reached or listed, DIR
// cannot be read or written); a skill that cannot be synced is in
// Summary.Refused, and the others are synced all the same.
func Sync(ctx context.Context, src *Source, opts *Options) (*Summary, error) {
	o := opts.withDefaults()
	lim := o.Limits.withDefaults()
	start := time.Now()
	k, err := dial(ctx, src, &o, &lim)
	if err != nil {
		return nil, err
	}
	defer k.close()
	sum, err := pass(ctx, k, src, &o, &lim)
	if sum != nil {
		sum.Elapsed = time.Since(start)
	}
	return sum, err
}

// Refusal is a skill left as it is, and why.
type Refusal struct {
	Skill  string `json:"skill"`
	Reason string `json:"reason"`
}

// Summary is what one sync did (or, with DryRun, would do).
type Summary struct {
	Source string `json:"source"`
	Dir    string `json:"dir"`
	// Via is the discovery used (docs/sync.md §2): "skills-extension",
	// "resources" (skill://…/SKILL.md and _manifest) or
	// "skill-resources" (skill://<name>).
	Via    string `json:"via"`
	DryRun bool   `json:"dryRun"`
	// Skill names per outcome, sorted.
	Added     []string  `json:"added"`
	Updated   []string  `json:"updated"`
	Removed   []string  `json:"removed"`
	Unchanged []string  `json:"unchanged"`
	Refused   []Refusal `json:"refused"`
	// Kept are this source's folders it lists no more that were not
	// removed, and why (the server still serves the skill, or could not
	// say).
	Kept []Refusal `json:"kept"`
	// Restored are the entries (folder/path) a killed earlier write had
	// moved into a hidden folder beside their folder, now back in it;
	// LeftStaged the hidden folders that could not be emptied;
	// SkippedStaged those named like one for a name no write uses, left
	// as they are (folderwrite.RecoverStaged).
	Restored      []string `json:"restored"`
	LeftStaged    []string `json:"leftStaged"`
	SkippedStaged []string `json:"skippedStaged"`
	// Requests and Bytes count what was asked of the server and the
	// bytes of its answers; Files the files read.
	Requests int64         `json:"requests"`
	Bytes    int64         `json:"bytes"`
	Files    int64         `json:"files"`
	Elapsed  time.Duration `json:"-"`

	uris map[string]string // each listed skill's SKILL.md URI, by name
}

// OK reports whether every listed skill was synced.
func (s *Summary) OK() bool { return len(s.Refused) == 0 }

// pass is one sync over an open connection.
func pass(ctx context.Context, k *conn, src *Source, o *Options, lim *Limits) (*Summary, error) {
	req0, bytes0 := k.requests.Load(), k.bytes.Load()
	l, err := discover(ctx, k, lim, o.Workers)
	if err != nil {
		return nil, err
	}
	wo := &folderwrite.WriteOptions{Agent: k.server, Source: src.String(), Origin: src.String(), Force: o.Force, Command: "sync", MaxFileBytes: lim.MaxFileBytes}
	rec := &folderwrite.Report{}
	if !o.DryRun {
		// What an earlier sync killed midway left is put right first.
		if rec, err = folderwrite.RecoverStaged(o.Dir, wo); err != nil {
			return nil, err
		}
	}
	p, err := makePlan(l, o.Dir, o, wo, lim)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Source: src.String(), Dir: o.Dir, Via: l.via, DryRun: o.DryRun, Unchanged: p.unchanged, Refused: p.refused,
		Restored: rec.Restored, LeftStaged: rec.Left, SkippedStaged: rec.Skipped, uris: make(map[string]string, len(l.skills))}
	for _, r := range l.skills {
		sum.uris[r.Name] = r.URI
	}
	if err := checkTotal(p, lim); err != nil {
		return nil, err
	}
	w := &writer{dir: o.Dir, wo: wo, dry: o.DryRun, sum: sum}
	ft := &fetcher{k: k, lim: lim}
	var files []*remote
	bySkill := map[*remote]*step{}
	for _, s := range p.steps {
		if o.DryRun && s.r.Verified {
			// The digests say it changes: no need to read it to say so.
			w.record(s)
			continue
		}
		files = append(files, s.r)
		bySkill[s.r] = s
	}
	var fatal error
	var once sync.Once
	fctx, cancel := context.WithCancel(ctx)
	ft.run(fctx, o.Workers, files, func(f *fetched) {
		if err := w.put(bySkill[f.r], f); err != nil {
			once.Do(func() { fatal = err; cancel() })
		}
	})
	cancel()
	sum.Files = ft.files.Load()
	if err := ctx.Err(); err != nil {
		// Interrupted: what failed after is the interruption's doing.
		fatal = err
	}
	if fatal == nil {
		fatal = w.drop(ctx, k, p.drop)
	}
	sum.Requests, sum.Bytes = k.requests.Load()-req0, k.bytes.Load()-bytes0
	sum.sort()
	return sum, fatal
}

// checkTotal refuses a sync whose listed sizes already pass the total
// bound, before anything is read.
func checkTotal(p *plan, lim *Limits) error {
	var total int64
	for _, s := range p.steps {
		for _, f := range s.r.Files {
			total += max(f.Size, 0)
		}
	}
	if total > lim.MaxTotalBytes {
		return fmt.Errorf("the skills to fetch list %d bytes in all, over the %d-byte bound (--max-total-bytes)", total, lim.MaxTotalBytes)
	}
	return nil
}

// writer puts fetched skills into DIR, one at a time.
type writer struct {
	dir string
	wo  *folderwrite.WriteOptions
	dry bool
	mu  sync.Mutex
	sum *Summary
}

// put checks a fetched skill and writes it whole; a skill that fails its
// checks, or that the writer refuses (folderwrite.Refusal: a file of the
// user's it would replace, found since the plan), is refused and its
// folder left as it was. The error is for a write that failed.
func (w *writer) put(s *step, f *fetched) error {
	if f.err != nil {
		return f.err
	}
	problem := f.problem
	if problem == "" {
		problem = checkSkillMD(s.r, f.data)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	name := s.r.Name
	switch {
	case problem != "":
		w.sum.Refused = append(w.sum.Refused, Refusal{Skill: name, Reason: problem})
		return nil
	case s.found.Owned(w.wo) && s.matches(f.data):
		w.sum.Unchanged = append(w.sum.Unchanged, name)
		return nil
	}
	if !w.dry {
		_, err := folderwrite.WriteFolders(w.dir, []folderwrite.Folder{folderOf(s.r, f.data)}, w.wo)
		var r *folderwrite.Refusal
		switch {
		case errors.As(err, &r):
			w.sum.Refused = append(w.sum.Refused, Refusal{Skill: name, Reason: r.Reason})
			return nil
		case errors.Is(err, syscall.ENAMETOOLONG):
			// A file system with shorter names than the 255 bytes the
			// listing was checked against: this skill cannot be held.
			w.sum.Refused = append(w.sum.Refused, Refusal{Skill: name, Reason: fmt.Sprintf("a name is too long for the file system holding %s (%v); the old version is kept", w.dir, err)})
			return nil
		case err != nil:
			return fmt.Errorf("writing skill %s: %w", name, err)
		}
	}
	w.record(s)
	return nil
}

// record counts a skill written (or, in a dry run, to be written).
func (w *writer) record(s *step) {
	if s.found.Kind == folderwrite.FoundNone {
		w.sum.Added = append(w.sum.Added, s.r.Name)
	} else {
		w.sum.Updated = append(w.sum.Updated, s.r.Name)
	}
}

// folderOf is the folder a skill is written as, SKILL.md first.
func folderOf(r *remote, data [][]byte) folderwrite.Folder {
	f := folderwrite.Folder{Name: r.Name, Skill: r.Name, URI: r.URI}
	for i, rf := range r.Files {
		f.Files = append(f.Files, folderwrite.FolderFile{Path: rf.Path, Data: data[i]})
	}
	slices.SortStableFunc(f.Files, func(a, b folderwrite.FolderFile) int {
		return boolInt(b.Path == "SKILL.md") - boolInt(a.Path == "SKILL.md")
	})
	return f
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkSkillMD refuses a skill whose SKILL.md a host would not load: no
// frontmatter, a name other than the folder's, or (from skills/list) a
// frontmatter other than the one listed.
func checkSkillMD(r *remote, data [][]byte) string {
	for i, rf := range r.Files {
		if rf.Path != "SKILL.md" {
			continue
		}
		fm, err := skillmd.ParseFrontmatter(data[i])
		if err != nil {
			return fmt.Sprintf("SKILL.md: %v", err)
		}
		if n, _ := fm["name"].(string); n != r.Name {
			return fmt.Sprintf("SKILL.md names the skill %q, not %q, the folder it is served as", textclip.Bytes(n, quoteBytes), r.Name)
		}
		if r.Frontmatter != nil && !sameJSON(fm, r.Frontmatter) {
			return "SKILL.md's frontmatter differs from the one skills/list gives; a host would refuse to load it"
		}
	}
	return ""
}

// sameJSON compares two JSON-like values as JSON carries them (numbers
// as float64).
func sameJSON(a, b any) bool {
	norm := func(v any) any {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		var out any
		json.Unmarshal(raw, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// drop removes this source's folders of skills it lists no more, once the
// server confirms each is gone: a skill briefly left out of a listing (a
// server between two versions of a folder) is not lost. A folder holding
// a file of the user's (added, or edited since sync wrote it) is refused
// and kept whole unless --force (skillsdir's removal rule), in a dry run
// too.
func (w *writer) drop(ctx context.Context, k *conn, gone []*folderwrite.Found) error {
	for _, f := range gone {
		if err := ctx.Err(); err != nil {
			return err
		}
		uri := f.URI
		if uri == "" {
			uri = skillScheme + f.Name + "/SKILL.md"
		}
		var err error
		if k.skillsExt {
			err = k.call(ctx, methodSkillsGet, map[string]any{"uri": uri}, nil)
		} else {
			_, err = readResource(ctx, k, uri, 1)
			if isTooLarge(err) {
				err = nil
			}
		}
		switch {
		case err == nil:
			w.sum.Kept = append(w.sum.Kept, Refusal{Skill: f.Name, Reason: "no longer listed, but " + uri + " is still served; kept"})
			continue
		case !isUnknown(err):
			w.sum.Kept = append(w.sum.Kept, Refusal{Skill: f.Name, Reason: fmt.Sprintf("no longer listed, and asking for %s failed (%v); kept", uri, err)})
			continue
		}
		err = folderwrite.CheckRemove(w.dir, f.Name, w.wo)
		if err == nil && !w.dry {
			_, err = folderwrite.RemoveFolders(w.dir, []string{f.Name}, w.wo)
		}
		var r *folderwrite.Refusal
		switch {
		case errors.As(err, &r):
			w.sum.Refused = append(w.sum.Refused, Refusal{Skill: f.Name, Reason: r.Reason})
			continue
		case err != nil:
			return fmt.Errorf("removing skill %s: %w", f.Name, err)
		}
		w.sum.Removed = append(w.sum.Removed, f.Name)
	}
	return nil
}

func (s *Summary) sort() {
	for _, l := range [][]string{s.Added, s.Updated, s.Removed, s.Unchanged} {
		sort.Strings(l)
	}
	for _, l := range [][]Refusal{s.Refused, s.Kept} {
		sort.Slice(l, func(i, j int) bool { return l[i].Skill < l[j].Skill })
	}
}
