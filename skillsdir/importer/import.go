package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/skillsdir"
	"github.com/agent3md/agent3md/skillsdir/export"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// Options configures Import. A nil *Options, or a zero field,
// means the default.
type Options struct {
	// Title names the agent; "" takes the first heading of AGENT.md,
	// else the first root's name (docs/skill-folders.md §11).
	Title string
	// Limits bound the agent file as it is read back before it is
	// returned (agentfile.Limits; zero fields are the defaults): a value
	// over the attribute bound is left out with a warning, and an agent
	// over any other bound fails with an *agentfile.LimitError.
	Limits agentfile.Limits
}

// Imported is an agent file written from skills folders: its bytes, which
// parse and validate without errors, and what the import did.
type Imported struct {
	// Data is the agent file.
	Data []byte
	// Agent is the agent's name.
	Agent string
	// Skills, Links and Files count the skill planes, the [[z=N]] links
	// made between them and the files listed by path; Skipped counts the
	// broken skills left out (Catalog.Broken): those with an error finding.
	Skills, Links, Files, Skipped int
	// Warnings are the scan's findings as validate words them (path,
	// line, severity, message, rule: an error is a skipped skill's, a
	// warning a kept one's), then what import had to change or leave out,
	// one line each, naming the file.
	Warnings []string
}

// Summary says what the import made, in one line.
func (r *Imported) Summary() string {
	return fmt.Sprintf("agent %q: %d skills, %d links between them, %d files listed, %d broken skills skipped",
		r.Agent, r.Skills, r.Links, r.Files, r.Skipped)
}

// importedSkill is one skill on its way into a plane.
type importedSkill struct {
	s        *skillsdir.Skill
	z        int
	label    string              // the plane's label; none when !hasLabel
	hasLabel bool                //
	body     string              //
	exported map[string]bool     // files an export wrote here (its marker), nil when none
	mark     *folderwrite.Marker // the marker an export left, nil when none
	desc     string              // the description, whitespace collapsed
	attrs    [][2]string         // plane attributes after z, in order
	files    []string            // files listed as references
	cut      bool                // the file list was cut at the scan's limit
	addDesc  bool                // put the description in as the first paragraph
}

// Import writes one agent file from the skills folders under roots, one
// agent for all of them as when they are served together
// (docs/skill-folders.md §11): an identity plane, then a plane per served
// skill. Broken skills are left out and counted. The result is parsed and
// validated with opts.Limits before it is returned; a command or inputs
// the validator refuses are left out of their skill with a warning. A
// skill name found in two roots fails with an error wrapping ErrNameClash.
func Import(ctx context.Context, roots []string, opts *Options) (*Imported, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Limits.MaxAttributeBytes <= 0 {
		o.Limits.MaxAttributeBytes = agentfile.DefaultMaxAttributeBytes
	}
	cat, err := skillsdir.Scan(ctx, roots, nil)
	if err != nil {
		return nil, err
	}
	r := &Imported{}
	items, err := readItems(ctx, cat, r)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s holds no valid skill folder (a folder with a SKILL.md within %d levels); nothing to import", strings.Join(roots, ", "), skillsdir.DefaultMaxDepth)
	}
	assignZ(items)
	assignLabels(items)
	id, err := readIdentity(ctx, roots[0], cat, items, o.Title)
	if err != nil {
		return nil, err
	}
	r.Agent = id.name()
	dirs := map[string]*importedSkill{} // skill folder → skill, for links
	byName := map[string]*importedSkill{}
	for _, it := range items {
		dirs[filepath.Clean(it.s.Dir)] = it
		byName[it.s.Name] = it
	}
	g := newDepGraph()
	for _, it := range items {
		warn := func(format string, args ...any) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: ", it.s.SkillMD())+fmt.Sprintf(format, args...))
		}
		r.Links += prepareBody(it, items, dirs, byName, g, warn)
		it.files, it.cut = listedFiles(it, dirs)
		if kept := slices.DeleteFunc(it.files, func(f string) bool { return !listable(f) }); len(kept) < len(it.files) {
			warn("%d files not listed: their names hold a line break, a control character or [[, which the agent file would read as a directive or link", len(it.files)-len(kept))
			it.files = kept
		}
		r.Files += len(it.files)
		it.attrs = planeAttrs(it, warn, o.Limits.MaxAttributeBytes)
	}
	r.Skills = len(items)
	r.Data, err = renderChecked(id, items, o.Limits, r)
	return r, err
}

// readItems reads each served skill's body and the marker an export left
// in its folder. Every finding of the scan becomes a warning line with its
// severity — a served skill's warnings too, as validate prints them — and
// the broken skills are counted: with one severity per rule, an error
// finding is exactly what leaves a skill out (docs/skill-folders.md §3).
func readItems(ctx context.Context, cat *skillsdir.Catalog, r *Imported) ([]*importedSkill, error) {
	for _, f := range cat.Findings() {
		r.Warnings = append(r.Warnings, f.String())
	}
	r.Skipped = len(cat.Broken())
	skills := cat.Skills()
	items := make([]*importedSkill, len(skills))
	for i, s := range skills {
		body, fresh, err := cat.Body(ctx, s.Name)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.SkillMD(), err)
		}
		it := &importedSkill{s: fresh, body: body, desc: strings.Join(strings.Fields(fresh.Description), " ")}
		if m, err := folderwrite.ReadMarkerIn(fresh.Dir); err == nil && m != nil {
			it.mark = m
			it.exported = map[string]bool{}
			for _, f := range m.Files {
				it.exported[f] = true
			}
		}
		items[i] = it
	}
	return items, nil
}

// prepareBody makes a SKILL.md body a plane body: export's additions
// dropped, text that would read as 3md made inert, links to other
// imported skills made [[z=N]] links (docs/skill-folders.md §11). It
// returns the number of links made.
func prepareBody(it *importedSkill, items []*importedSkill, dirs, byName map[string]*importedSkill, g *depGraph, warn func(string, ...any)) int {
	if strings.Contains(strings.ReplaceAll(it.body, "\r\n", ""), "\r") {
		warn("lone carriage returns read as line breaks")
	}
	it.body = stripExportArtifacts(normalizeNewlines(it.body), it.exported != nil)
	// An export leaves links it did not rewrite as they were written: to
	// the identity, or to a skill by a z spelt otherwise ([[z=2.0]]).
	planes := map[float64]bool{0: true}
	for _, o := range items {
		planes[float64(o.z)] = true
	}
	var n int
	it.body, n = neutralizeLinks(it.body, func(target string) bool {
		z, ok := agentfile.ParseNumber(target)
		return it.exported != nil && ok && planes[z]
	})
	if n > 0 {
		warn("%d [[z=…]] texts would read as links in an agent file; written as [\\[z=…]] instead", n)
	}
	var rewritten, kept, cyclic, misnamed int
	it.body, rewritten, kept = rewriteLinks(it.body, func(dest, text string) (string, bool) {
		t := linkTarget(it, dest, dirs, byName)
		if t == nil || t == it {
			return "", false
		}
		if txt, ok := linkText3md(text); ok {
			if n, named := byName[strings.TrimSpace(txt)]; named && n != t {
				// [[z=N|other-skill]] is the validator's link-name error.
				misnamed++
				return "", false
			}
		}
		if !g.add(it.z, t.z) {
			cyclic++
			return "", false
		}
		return strconv.Itoa(t.z), true
	}, func(dest string) bool {
		u, err := url.Parse(dest)
		return err == nil && it.exported[path.Clean(u.Path)]
	})
	if kept > 0 {
		warn("%d links to other skills keep their Markdown form: their text cannot be a [[z=…]] link text (a ']', or over 400 characters)", kept)
	}
	if cyclic > 0 {
		warn("%d links to other skills keep their Markdown form: as [[z=…]] links they would close a dependency cycle", cyclic)
	}
	if misnamed > 0 {
		warn("%d links to other skills keep their Markdown form: their text names another skill than the one they point at (as [[z=…]] links they would load the skill they point at, not the one they name); fix the text or the target", misnamed)
	}
	var dirsEscaped int
	var closed bool
	it.body, dirsEscaped, closed = sanitizeBody(strings.Trim(it.body, "\n"))
	if dirsEscaped > 0 {
		warn("%d lines starting with @plane written as \\@plane, so they stay body text", dirsEscaped)
	}
	if closed {
		warn("the body leaves a code fence open; closed at its end so the planes after it are read")
	}
	return rewritten
}

// renderChecked renders the agent file and reads it back: where a body's
// first paragraph does not read as the skill's description, the
// description is put in front; a command or inputs the validator refuses
// are left out. What is returned parses and validates.
func renderChecked(id *identity, items []*importedSkill, limits agentfile.Limits, r *Imported) ([]byte, error) {
	data := renderAgent(id, items)
	parsed, err := parseImported(data, limits)
	if err != nil {
		return nil, err
	}
	var missing []*importedSkill
	for _, it := range items {
		if !descriptionMatches(parsed, it) {
			it.addDesc = true
			missing = append(missing, it)
		}
	}
	if len(missing) > 0 {
		data = renderAgent(id, items)
		if parsed, err = parseImported(data, limits); err != nil {
			return nil, err
		}
		for _, it := range missing {
			if !descriptionMatches(parsed, it) {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s: the description reads back as %q", it.s.SkillMD(), parsed.Planes[parsed.PlaneIndex(float64(it.z))].Description))
			}
		}
	}
	// A command or inputs the validator refuses (an undeclared or unsafe
	// placeholder, a bad type) are left out rather than failing the whole
	// import: the skill's guidance still comes through.
	rep := agentfile.Validate(parsed)
	if !rep.OK() {
		dropped := false
		for _, f := range rep.Errors {
			it := itemAt(items, f.Z)
			if it == nil || !dropTool(it) {
				continue
			}
			dropped = true
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: its command is left out (%s: %s)", it.s.SkillMD(), f.Rule, f.Message))
		}
		if dropped {
			data = renderAgent(id, items)
			if parsed, err = parseImported(data, limits); err != nil {
				return nil, err
			}
			rep = agentfile.Validate(parsed)
		}
	}
	if !rep.OK() && id.head != nil {
		// The export's agent file was not valid (a dangling entry, no
		// name): make the frontmatter from AGENT.md, as without a head.
		id.head, id.z = nil, ""
		return renderChecked(id, items, limits, r)
	}
	if !rep.OK() {
		var lines []string
		for _, f := range rep.Errors {
			lines = append(lines, fmt.Sprintf("(import):%d: error [%s]: %s", f.Line, f.Rule, f.Message))
		}
		return nil, fmt.Errorf("internal error: the imported agent does not validate; please report it:\n  %s", strings.Join(lines, "\n  "))
	}
	return data, nil
}

// parseImported parses the rendered agent with the caller's limits.
func parseImported(data []byte, limits agentfile.Limits) (*agentfile.Catalog, error) {
	cat, err := agentfile.Parse(bytes.NewReader(data), &agentfile.Options{File: "(import)", Limits: limits})
	if err != nil {
		var le *agentfile.LimitError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("the imported agent is over a limit: %w", err)
		}
		return nil, fmt.Errorf("internal error: the imported agent does not parse; please report it: %w", err)
	}
	return cat, nil
}

// descriptionMatches reports whether the plane of it describes itself with
// the skill's description, as far as agentfile keeps one (500 characters,
// then cut at a word with "…"), and as export reads it back: links as
// their text (else the target's name), the text made valid UTF-8.
func descriptionMatches(cat *agentfile.Catalog, it *importedSkill) bool {
	i := cat.PlaneIndex(float64(it.z))
	if i < 0 {
		return false
	}
	got := strings.ToValidUTF8(export.PlainLinks(cat.Planes[i].Description, func(z float64) (string, bool) {
		if j := cat.PlaneIndex(z); j >= 0 {
			return cat.Planes[j].Label, cat.Planes[j].HasLabel
		}
		return "", false
	}), "\uFFFD")
	if got == it.desc {
		return true
	}
	if utf8.RuneCountInString(it.desc) <= agentfile.MaxDescriptionRunes {
		return false
	}
	cut, ok := strings.CutSuffix(got, "…")
	return ok && strings.HasPrefix(it.desc, cut)
}

func itemAt(items []*importedSkill, z *float64) *importedSkill {
	if z == nil {
		return nil
	}
	for _, it := range items {
		if float64(it.z) == *z {
			return it
		}
	}
	return nil
}

// dropTool removes a plane's tool and inputs; false when it had neither.
func dropTool(it *importedSkill) bool {
	n := len(it.attrs)
	it.attrs = slices.DeleteFunc(it.attrs, func(kv [2]string) bool { return kv[0] == "tool" || kv[0] == "inputs" })
	return len(it.attrs) != n
}

// assignLabels names each skill's plane: by the label an export wrote in
// metadata, so "Run Tests" stays "Run Tests", else by the folder's name (a
// plane without a label is named skill-<z>, but the validator wants one).
// A label is kept only when it gives back the folder's name as the skill's
// Agent Skills name, since export writes the folder under that name.
func assignLabels(items []*importedSkill) {
	for _, it := range items {
		v, ok := metaString(it.s, "label")
		switch {
		case ok && v != "" && !strings.ContainsAny(v, "\r\n\x00"):
			it.label, it.hasLabel = v, true
		default:
			it.label, it.hasLabel = it.s.Name, true
		}
	}
	// Reverting one label can change another's slug (a clash that was
	// resolved by z): repeat until every slug is its folder's name.
	for range len(items) + 1 {
		skills := make([]agentfile.Skill, len(items))
		for i, it := range items {
			skills[i] = agentfile.Skill{Name: it.name(), Z: float64(it.z)}
		}
		slugs, _ := export.AssignSlugs(skills)
		seen := map[string]bool{}
		changed := false
		for i, it := range items {
			key := agentfile.NameKey(it.name())
			if slugs[i] != it.s.Name || seen[key] {
				if !it.hasLabel || it.label != it.s.Name {
					it.label, it.hasLabel, changed = it.s.Name, true, true
				}
			}
			seen[key] = true
		}
		if !changed {
			return
		}
	}
}

// name is the skill's name in the agent file: its label, or skill-<z>.
func (it *importedSkill) name() string {
	if it.hasLabel {
		return it.label
	}
	return "skill-" + strconv.Itoa(it.z)
}

// assignZ numbers the skills' planes: the z an export wrote in metadata
// when it is a whole number from 1 and no other skill has it, else the
// next free numbers after the largest, in name order. The identity is z=0.
func assignZ(items []*importedSkill) {
	used := map[int]bool{0: true}
	top := 0
	for _, it := range items {
		z, ok := metaString(it.s, "z")
		if !ok || len(z) > 9 || strings.Trim(z, "0123456789") != "" {
			continue
		}
		n, _ := strconv.Atoi(z)
		if n < 1 || used[n] {
			continue
		}
		it.z, used[n] = n, true
		top = max(top, n)
	}
	for _, it := range items {
		if it.z == 0 {
			top++
			it.z = top
			used[top] = true
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].z < items[j].z })
}

// linkTarget maps a link destination in it's body to an imported skill:
// a relative path to another skill's folder or its SKILL.md, or, in a
// folder an export wrote, the references/<name>.md copy of a skill it
// depends on. nil when it is neither.
func linkTarget(it *importedSkill, dest string, dirs map[string]*importedSkill, byName map[string]*importedSkill) *importedSkill {
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" || strings.HasPrefix(u.Path, "/") || strings.ContainsRune(u.Path, '\\') {
		return nil
	}
	p := path.Clean(u.Path)
	if it.exported != nil && it.exported[p] {
		if name, ok := strings.CutPrefix(p, "references/"); ok && strings.HasSuffix(name, ".md") {
			if t, ok := byName[strings.TrimSuffix(name, ".md")]; ok {
				return t
			}
		}
	}
	full := filepath.Join(it.s.Dir, filepath.FromSlash(p))
	if filepath.Base(full) == "SKILL.md" {
		full = filepath.Dir(full)
	}
	return dirs[filepath.Clean(full)]
}

// listedFiles are the files of it's folder listed in its plane: all but
// SKILL.md, those of skills nested in it (listed with them) and those an
// export wrote (copies of other planes and of the identity).
func listedFiles(it *importedSkill, dirs map[string]*importedSkill) (out []string, cut bool) {
	for _, f := range it.s.Files {
		if f.Path == "SKILL.md" || it.exported[f.Path] {
			continue
		}
		nested := false
		for d := path.Dir(f.Path); d != "."; d = path.Dir(d) {
			if _, ok := dirs[filepath.Join(it.s.Dir, filepath.FromSlash(d))]; ok {
				nested = true
				break
			}
		}
		if !nested {
			out = append(out, f.Path)
		}
	}
	return out, it.s.Truncated
}

// filesMarker opens the file list import appends to a plane's body; an
// HTML comment, so Markdown shows nothing of it and a later import of an
// exported skill recognises (and replaces) the list.
const filesMarker = "<!-- agent3md import: files -->"

// filesSection renders the file list appended to a plane's body.
func filesSection(it *importedSkill) string {
	if len(it.files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(filesMarker + "\n")
	folder := it.s.Rel
	if folder == "." || !listable(folder) {
		folder = filepath.Base(it.s.Dir) // the skill's name: a valid one
	}
	fmt.Fprintf(&b, "Files of this skill, by path in its folder `%s` (not included here):\n\n", codeText(folder))
	for _, f := range it.files {
		fmt.Fprintf(&b, "- %s\n", codeSpan(f))
	}
	if it.cut {
		b.WriteString("- … (the list was cut at the file limit)\n")
	}
	return b.String()
}

// listable reports whether a file or folder name can be written in a
// plane's body as it is: a code span keeps Markdown from reading it, but
// the agent format reads lines and [[z=N]] links before any Markdown, so a
// name holding a line break ("x\n@plane z=9 tool=...") would add a plane
// and one holding [[ a link.
func listable(s string) bool {
	if strings.Contains(s, "[[") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	return true
}

// codeSpan renders s as a Markdown code span, fenced by one more backtick
// than its longest run.
func codeSpan(s string) string {
	n, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			cur++
			n = max(n, cur)
		} else {
			cur = 0
		}
	}
	fence := strings.Repeat("`", n+1)
	if n > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

func codeText(s string) string { return strings.ReplaceAll(s, "`", "'") }

// exportTrailer matches the line export adds to every SKILL.md it writes,
// pointing at the identity (go).
var exportTrailer = regexp.MustCompile(`\n*This skill belongs to the agent [^\n]*: read its identity and rules in \[AGENT\.md\]\(references/AGENT\.md\) before acting\.\n*$`)

// stripExportArtifacts removes what import and export add around a body,
// so that converting back and forth does not pile them up: export's
// pointer to the identity (in a folder export wrote) and, elsewhere, a
// file list an earlier import appended.
func stripExportArtifacts(body string, exported bool) string {
	body = strings.TrimRight(body, "\n") + "\n"
	if exported {
		body = exportTrailer.ReplaceAllString(body, "\n")
	}
	// A folder export wrote has no files but its own, so the list in its
	// body is the one to keep; elsewhere the list is made afresh.
	if k := strings.LastIndex(body, filesMarker); k >= 0 && !exported {
		body = body[:k]
	}
	return body
}

// depGraph keeps the dependency links made so far, to refuse one that
// would close a cycle (the validator's cycle rule, docs/format.md §12).
type depGraph struct{ edges map[int][]int }

func newDepGraph() *depGraph { return &depGraph{edges: map[int][]int{}} }

// add records from → to unless to already reaches from; false then.
func (g *depGraph) add(from, to int) bool {
	if slices.Contains(g.edges[from], to) {
		return true
	}
	seen := map[int]bool{}
	stack := []int{to}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == from {
			return false
		}
		if seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, g.edges[n]...)
	}
	g.edges[from] = append(g.edges[from], to)
	return true
}
