package skillsdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/skillsdir/skillmd"
)

// Scan finds the skill folders under roots and returns their catalog.
// Each root is a directory; every directory down to Options.MaxDepth levels
// below it that holds a SKILL.md is a skill folder (a root holding a
// SKILL.md is itself one skill). Hidden entries (".git", ".env") are
// skipped. Folders are read in parallel by Options.Workers workers.
//
// A broken skill is left out with findings (Catalog.Findings), never
// failing the scan. The scan fails when a root cannot be read, on
// ErrTooManySkills, on a name used by two folders (*ClashError, naming
// both) and when ctx ends. Nothing found is ever executed.
func Scan(ctx context.Context, roots []string, opts *Options) (*Catalog, error) {
	o := opts.withDefaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sc := &scanner{ctx: ctx, cancel: cancel, opts: &o, pool: newPool()}
	seen := map[string]bool{}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("skills folder %s: %w", r, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("skills folder %s: %w", r, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("skills folder %s is not a directory; give a folder of skill folders", r)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("skills folder %s: %w", r, err)
		}
		if seen[real] {
			continue // the same folder given twice is served once
		}
		seen[real] = true
		sc.pool.submit(func() { sc.dir(abs, abs, real, real, 0) })
	}
	sc.pool.run(o.Workers)
	if sc.err != nil {
		return nil, sc.err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("scanning skills folders: %w", err)
	}
	c := &Catalog{opts: o, other: sc.findings}
	if err := c.publish(sc.skills); err != nil {
		return nil, err
	}
	sortFindings(c.other)
	return c, nil
}

// scanner is one Scan's shared state.
type scanner struct {
	ctx    context.Context
	cancel context.CancelFunc
	opts   *Options
	pool   *pool
	count  atomic.Int64

	mu       sync.Mutex
	skills   []*Skill
	findings []Finding
	err      error
}

func (sc *scanner) fail(err error) {
	sc.mu.Lock()
	if sc.err == nil {
		sc.err = err
	}
	sc.mu.Unlock()
	sc.cancel()
}

func (sc *scanner) note(fs ...Finding) {
	if len(fs) == 0 {
		return
	}
	sc.mu.Lock()
	sc.findings = append(sc.findings, fs...)
	sc.mu.Unlock()
}

// dir reads one directory that is not inside a skill: a SKILL.md makes it
// a skill, otherwise its subdirectories are searched while depth allows.
// Directory symlinks are followed only when they leave the root's real
// tree (a user's ~/.claude/skills/x → ~/src/x) and do not lead to a
// folder holding the root; one pointing back inside would only find the
// same skills twice. real is dir with its symlinks
// resolved, tracked along the walk so no folder is resolved twice.
func (sc *scanner) dir(root, dir, real, realRoot string, depth int) {
	if sc.ctx.Err() != nil {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		sc.note(newFinding(RuleUnreadable, "", dir, 0, "cannot read folder: "+err.Error()))
		return
	}
	for _, e := range entries {
		if e.Name() == "SKILL.md" {
			sc.skill(root, dir, real, depth, "")
			return
		}
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), "SKILL.md") && !e.IsDir() {
			// Hosts look for SKILL.md exactly (on a case-sensitive file
			// system); a skill.md would be skipped without a word.
			// It belongs to no skill, and is an error: the folder was
			// meant as one.
			sc.note(newFinding(RuleSkillMDCase, "", filepath.Join(dir, e.Name()), 0,
				fmt.Sprintf("this folder is no skill: its %s must be named SKILL.md, in upper case; rename it", e.Name())))
		}
	}
	if depth >= sc.opts.MaxDepth {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		child, realChild := filepath.Join(dir, name), filepath.Join(real, name)
		switch {
		case e.IsDir():
		case e.Type()&os.ModeSymlink != 0:
			r, err := filepath.EvalSymlinks(child)
			if err != nil || within(realRoot, r) || within(r, realRoot) {
				// Inside the root it finds the same skills again; a
				// folder holding the root (a link to .. or ~) would
				// search the whole tree around it.
				continue
			}
			if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
				continue
			}
			realChild = r
		default:
			continue
		}
		sc.pool.submit(func() { sc.dir(root, child, realChild, realRoot, depth+1) })
	}
}

// skill scans one skill folder and queues the skills nested in it.
func (sc *scanner) skill(root, dir, real string, depth int, parent string) {
	if sc.ctx.Err() != nil {
		return
	}
	if n := sc.count.Add(1); n > int64(sc.opts.MaxSkills) {
		sc.fail(fmt.Errorf("more than %d skills under the skills folders (MaxSkills): %w", sc.opts.MaxSkills, ErrTooManySkills))
		return
	}
	s, nested, broken := scanSkill(root, dir, real, depth, sc.opts)
	s.Parent = parent
	sc.mu.Lock()
	if broken != nil {
		sc.findings = append(sc.findings, broken...)
	} else {
		sc.skills = append(sc.skills, s)
	}
	sc.mu.Unlock()
	held := make(map[string]bool, len(nested))
	for _, rel := range nested {
		held[rel] = true
	}
	for _, rel := range nested {
		d := depth + strings.Count(rel, "/") + 1
		if a, ok := nestedAncestor(held, rel); ok && depth+strings.Count(a, "/")+1 <= sc.opts.MaxDepth {
			// The walk lists every SKILL.md below the folder; one inside a
			// nested skill that is scanned is found again by that skill's
			// own scan, and queuing it here too would serve it twice (a
			// name clash with itself) and give it the wrong parent.
			continue
		}
		child, realChild := filepath.Join(dir, filepath.FromSlash(rel)), filepath.Join(real, filepath.FromSlash(rel))
		if d > sc.opts.MaxDepth {
			sc.note(newFinding(RuleNestedTooDeep, filepath.Base(child), filepath.Join(child, "SKILL.md"), 0,
				fmt.Sprintf("nested skill is %d levels below its root, past MaxDepth %d; it is served only as files of %s", d, sc.opts.MaxDepth, filepath.Base(dir))))
			continue
		}
		sc.pool.submit(func() { sc.skill(root, child, realChild, d, filepath.Base(dir)) })
	}
}

// nestedAncestor returns the nearest folder in held (slash paths
// relative to one skill) that holds rel, if any.
func nestedAncestor(held map[string]bool, rel string) (string, bool) {
	for p := path.Dir(rel); p != "."; p = path.Dir(p) {
		if held[p] {
			return p, true
		}
	}
	return "", false
}

// scanSkill reads one skill folder: SKILL.md's frontmatter and links, and
// the list of its files. It returns the skill, the slash paths of folders
// nested in it that hold a SKILL.md, and — when the skill is broken —
// the findings that say why (then the skill is not to be served). real is
// dir with its symlinks resolved.
func scanSkill(root, dir, real string, depth int, o *Options) (s *Skill, nested []string, broken []Finding) {
	s = &Skill{Dir: dir, Root: root, depth: depth}
	s.Rel, _ = filepath.Rel(root, dir)
	s.Rel = filepath.ToSlash(s.Rel)
	md := filepath.Join(dir, "SKILL.md")
	c := &checker{skill: filepath.Base(dir), path: md}
	s.realDir = real
	fi, err := os.Lstat(real)
	if err != nil || !fi.IsDir() {
		c.out = append(c.out, newFinding(RuleSkillMD, c.skill, md, 0, "the skill folder is gone or not a folder"))
		return s, nil, c.out
	}
	s.dirID = sigOf(fi)
	data, mdSig, err := readInside(real, s.dirID, "SKILL.md", o.MaxFileBytes)
	if err != nil {
		msg := "cannot read SKILL.md: " + errText(err, o)
		if target, lerr := os.Readlink(md); lerr == nil && errors.Is(err, ErrRefused) {
			// A dotfiles manager (GNU Stow, Home Manager) links each file;
			// say what to link instead.
			msg = fmt.Sprintf("SKILL.md is a symlink to %s, which is absolute or leaves the skill folder, and a skill's files are never read through such links; link the whole skill folder instead (make %s a symlink to %s), or copy the file", target, dir, filepath.Dir(resolveLink(md, target)))
		}
		c.out = append(c.out, newFinding(RuleSkillMD, c.skill, md, 0, msg))
		return s, nil, c.out
	}
	fm, p := skillmd.Parse(data, o.MaxFrontmatterBytes)
	if p != nil {
		c.out = append(c.out, newFinding(p.Rule, c.skill, md, p.Line, p.Msg))
	} else {
		c.fm = fm
		ok := validate(s, fm, c)
		s.Frontmatter, s.BodyOffset = fm.Fields, fm.BodyOffset
		if ok {
			s.links = bodyLinks(data[fm.BodyOffset:], dir)
		}
	}
	// SKILL.md is listed first, with the signature of the bytes just
	// parsed, so a cut list still holds it.
	s.Files = append(s.Files, File{Path: "SKILL.md", Size: int64(len(data)), MIME: mimeByExt("SKILL.md"), sig: mdSig})
	s.Bytes = int64(len(data))
	var body []byte
	bodyLine := 0
	if p == nil && len(s.links) > 0 {
		body, bodyLine = data[fm.BodyOffset:], 1+bytes.Count(data[:fm.BodyOffset], []byte("\n"))
	}
	data = nil // the body is not kept
	w := &fileWalk{s: s, o: o, c: c}
	w.walk(real, "", 0)
	nested = w.nested
	w.finish()
	if !s.Truncated {
		brokenLinks(s, body, bodyLine, c)
	}
	if p != nil || slices.ContainsFunc(c.out, Finding.Breaks) {
		return s, nested, c.out
	}
	s.Findings = c.out
	return s, nested, nil
}

// brokenLinks warns of each relative link in the body that points into
// the skill folder at nothing it serves: a renamed file, a folder never
// copied, a hidden file. A host following it over MCP gets "not found".
// Links leading out of the folder are another skill's business (Deps).
func brokenLinks(s *Skill, body []byte, bodyLine int, c *checker) {
	seen := map[string]bool{}
	for _, t := range s.links {
		rel, err := filepath.Rel(s.Dir, t)
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if seen[rel] {
			continue
		}
		seen[rel] = true
		if _, ok := s.file(rel); ok || slices.ContainsFunc(s.Files, func(f File) bool { return strings.HasPrefix(f.Path, rel+"/") }) {
			continue
		}
		line := bodyLine
		if i := bytes.Index(body, []byte(rel)); i >= 0 {
			line += bytes.Count(body[:i], []byte("\n"))
		}
		c.out = append(c.out, newFinding(RuleBrokenLink, c.skill, c.path, line,
			fmt.Sprintf("the body links to %s, which the skill folder does not serve (missing, hidden, a special file or over a limit); fix the link or add the file", rel)))
	}
}

// resolveLink makes a symlink's target absolute, relative to the link.
func resolveLink(link, target string) string {
	if filepath.IsAbs(target) {
		return filepath.Clean(target)
	}
	return filepath.Join(filepath.Dir(link), target)
}

// errText words a read error for a finding, naming the limit concerned.
func errText(err error, o *Options) string {
	if errors.Is(err, ErrTooLarge) {
		return fmt.Sprintf("it is over %d bytes (MaxFileBytes)", o.MaxFileBytes)
	}
	return err.Error()
}

// within reports whether path is dir or below it; both are cleaned,
// resolved paths.
func within(dir, path string) bool {
	if path == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}
