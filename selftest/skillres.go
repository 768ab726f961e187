package selftest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agent3md/agent3md/internal/digest"
	"github.com/agent3md/agent3md/internal/textclip"
)

// skillResource is a listed skill://<path>/SKILL.md resource.
type skillResource struct {
	path string
	res  resourceInfo
}

// name is the skill's name: the last segment of its path.
func (s skillResource) name() string { return lastSegment(s.path) }

// skillResources picks the listed SKILL.md resources.
func skillResources(listed []resourceInfo) []skillResource {
	var out []skillResource
	for _, res := range listed {
		if path, ok := skillPathOf(res.URI); ok {
			out = append(out, skillResource{path, res})
		}
	}
	return out
}

// listedURI reports whether uri is in the resource list. The set is
// built once: the alias and manifest checks ask for every listed skill,
// and a huge agent lists a hundred thousand.
func (r *runner) listedURI(uri string) bool {
	if r.resourceSet == nil {
		r.resourceSet = make(map[string]bool, len(r.resources))
		for _, res := range r.resources {
			r.resourceSet[res.URI] = true
		}
	}
	return r.resourceSet[uri]
}

// skillResourceChecks check skills served as resources (the
// skills-as-resources convention, docs/selftest.md §4): each check is
// skipped on a server that does not declare resources or lists no
// skill://<path>/SKILL.md resource.
func (r *runner) skillResourceChecks() {
	r.check("resources/templates", r.checkTemplates)
	r.check("resources/unknown", r.checkUnknownResource)
	r.check("resources/skill-md", r.checkSkillMD)
	r.check("resources/manifest", r.checkManifests)
	r.check("resources/alias", r.checkAlias)
	r.check("resources/prompt-xml", r.checkPromptXML)
}

// needResources returns the legacy session for a resources check, or
// the outcome to record instead.
func (r *runner) needResources() (wire, outcome, bool) {
	c, err := r.session()
	if err != nil {
		return wire{}, fail("%v", err), false
	}
	if !r.declares("resources") {
		return wire{}, skip("server does not declare the resources capability"), false
	}
	return wire{c: c}, outcome{}, true
}

// needSkillResources is needResources plus the listed SKILL.md resources.
func (r *runner) needSkillResources() (wire, []skillResource, outcome, bool) {
	w, out, ok := r.needResources()
	if !ok {
		return w, nil, out, false
	}
	if r.resources == nil {
		return w, nil, skip("needs the resource list: %s", r.resourcesErr), false
	}
	skills := skillResources(r.resources)
	if len(skills) == 0 {
		return w, nil, skip("server lists no skill://<path>/%s resource", skillFile), false
	}
	return w, skills, outcome{}, true
}

// readOne reads uri and returns its single content and that content's
// bytes; problem says what is wrong with the answer, err that the session
// failed.
func (r *runner) readOne(w wire, uri string) (readContent, []byte, string, error) {
	raw, rerr, err := r.request(w, "resources/read", map[string]any{"uri": uri})
	if err != nil {
		return readContent{}, nil, "", err
	}
	if rerr != nil {
		return readContent{}, nil, fmt.Sprintf("reading %s answered %v", uri, rerr), nil
	}
	var res struct {
		Contents []readContent `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Contents) != 1 {
		return readContent{}, nil, fmt.Sprintf("reading %s: want exactly one content, got %s", uri, countContents(raw)), nil
	}
	b, berr := res.Contents[0].Bytes()
	if berr != nil {
		return readContent{}, nil, fmt.Sprintf("reading %s: %v", uri, berr), nil
	}
	return res.Contents[0], b, "", nil
}

// countContents describes a read result's contents for a detail.
func countContents(raw json.RawMessage) string {
	var res struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &res) != nil || res.Contents == nil {
		return "no \"contents\" array"
	}
	return strconv.Itoa(len(res.Contents))
}

// eachSampled runs fn on an evenly spread sample of items (Options.Sample)
// and words the outcome like eachSkill: fn returns a problem ("" when
// fine, "skip" when the item does not qualify) or an error that ends the
// loop.
func eachSampled[T any](r *runner, items []T, noun string, fn func(T) (string, error)) outcome {
	idx := sampleIndices(len(items), r.o.Sample)
	capNote := ""
	if len(idx) < len(items) {
		capNote = fmt.Sprintf(" (an evenly spread sample of %d of %d)", len(idx), len(items))
	}
	var problems []string
	checked := 0
	for _, i := range idx {
		problem, err := fn(items[i])
		if err != nil {
			return fail("%v (after %d %s)", err, checked, noun)
		}
		if problem == "skip" {
			continue
		}
		checked++
		if problem != "" {
			problems = append(problems, problem)
		}
	}
	switch {
	case len(problems) > 0:
		more := ""
		if len(problems) > maxProblems {
			more = fmt.Sprintf("; and %d more", len(problems)-maxProblems)
		}
		return fail("%d of %d %s%s: %s%s", len(problems), checked, noun, capNote, firstProblems(problems), more)
	case checked == 0:
		return skip("no %s qualifies for this check%s", noun, capNote)
	}
	return pass("%d %s%s", checked, noun, capNote)
}

// checkSkillMD reads each sampled SKILL.md resource: one text content,
// text/markdown when listed so, a frontmatter whose name is the skill
// path's last segment and the listed name, and the listed size.
func (r *runner) checkSkillMD() outcome {
	w, skills, out, ok := r.needSkillResources()
	if !ok {
		return out
	}
	return eachSampled(r, skills, "skills", func(s skillResource) (string, error) {
		content, b, problem, err := r.readOne(w, s.res.URI)
		if problem != "" || err != nil {
			return problem, err
		}
		return skillMDProblem(s, content, b), nil
	})
}

// skillMDProblem says what is wrong with a SKILL.md read, or "".
func skillMDProblem(s skillResource, content readContent, b []byte) string {
	uri := s.res.URI
	if content.Text == nil {
		return fmt.Sprintf("%s: content is a blob, want text", uri)
	}
	if s.res.MimeType == mimeMarkdown && content.MimeType != mimeMarkdown {
		return fmt.Sprintf("%s: listed as %s but read back with mimeType %q", uri, mimeMarkdown, content.MimeType)
	}
	fm, err := parseFrontmatter(*content.Text)
	if err != nil {
		return fmt.Sprintf("%s: %v", uri, err)
	}
	name, err := frontmatterName(fm)
	switch {
	case err != nil:
		return fmt.Sprintf("%s: %v", uri, err)
	case name != s.name():
		return fmt.Sprintf("%s: frontmatter name %q differs from the skill path's last segment %q", uri, name, s.name())
	case s.res.Name != name:
		return fmt.Sprintf("%s: listed with name %q, but its frontmatter name is %q", uri, s.res.Name, name)
	}
	if size, ok, perr := s.res.size(); perr != "" {
		return fmt.Sprintf("%s: %s", uri, perr)
	} else if ok && size != int64(len(b)) {
		return fmt.Sprintf("%s: listed size %d, but the text read is %d UTF-8 bytes", uri, size, len(b))
	}
	return ""
}

// checkManifests reads each sampled skill's _manifest, when listed, and
// every file it names, comparing sizes and sha256 hashes with the bytes
// read.
func (r *runner) checkManifests() outcome {
	w, skills, out, ok := r.needSkillResources()
	if !ok {
		return out
	}
	skills = slices.DeleteFunc(slices.Clone(skills), func(s skillResource) bool {
		return !r.listedURI(skillFileURI(s.path, manifestFile))
	})
	if len(skills) == 0 {
		return skip("server lists no skill://<path>/%s resource", manifestFile)
	}
	return eachSampled(r, skills, "manifests", func(s skillResource) (string, error) {
		uri := skillFileURI(s.path, manifestFile)
		content, _, problem, err := r.readOne(w, uri)
		if problem != "" || err != nil {
			return problem, err
		}
		if content.Text == nil {
			return fmt.Sprintf("%s: content is a blob, want JSON text", uri), nil
		}
		m, perr := parseManifest(*content.Text)
		if perr != nil {
			return fmt.Sprintf("%s: %v", uri, perr), nil
		}
		if m.Skill != s.name() && m.Skill != s.path {
			return fmt.Sprintf("%s: \"skill\" is %q, want %q", uri, m.Skill, s.name()), nil
		}
		return r.manifestFilesProblem(w, s.path, m)
	})
}

// manifestFilesProblem reads every file of a manifest and compares it.
func (r *runner) manifestFilesProblem(w wire, path string, m *manifest) (string, error) {
	var total int64
	for _, f := range m.Files {
		total += *f.Size
		if total > maxSkillBytes {
			return fmt.Sprintf("%s: files total over %d bytes, the most a skill may hold", skillFileURI(path, manifestFile), maxSkillBytes), nil
		}
		uri := skillFileURI(path, f.Path)
		_, b, problem, err := r.readOne(w, uri)
		switch {
		case problem != "" || err != nil:
			return problem, err
		case int64(len(b)) != *f.Size:
			return fmt.Sprintf("%s: the manifest says %d bytes, read %d", uri, *f.Size, len(b)), nil
		case !strings.EqualFold(digest.Of(b), f.Hash):
			return fmt.Sprintf("%s: the manifest hash %s differs from the sha256 of the bytes read, %s", uri, f.Hash, digest.Of(b)), nil
		}
	}
	return "", nil
}

// checkAlias reads skill://<path> for each sampled skill: it must read as
// that skill's SKILL.md, byte for byte, and never be listed. A server
// that refuses the alias only gets a warning: clients that need it
// (docs/selftest.md §6) are one convention among several.
func (r *runner) checkAlias() outcome {
	w, skills, out, ok := r.needSkillResources()
	if !ok {
		return out
	}
	for _, s := range skills {
		if alias := skillScheme + s.path; r.listedURI(alias) {
			return fail("%s is listed: the skill's root directory URI may read as its %s, but must stay out of resources/list", alias, skillFile)
		}
	}
	var refused []string
	res := eachSampled(r, skills, "aliases", func(s skillResource) (string, error) {
		alias := skillScheme + s.path
		_, got, problem, err := r.readOne(w, alias)
		if err != nil {
			return "", err
		}
		if problem != "" {
			refused = append(refused, problem)
			return "skip", nil
		}
		_, want, problem, err := r.readOne(w, s.res.URI)
		if problem != "" || err != nil {
			return problem, err
		}
		if string(got) != string(want) {
			return fmt.Sprintf("%s reads %d bytes that differ from its %s's %d", alias, len(got), skillFile, len(want)), nil
		}
		return "", nil
	})
	if len(refused) > 0 && res.status != StatusFail {
		note := fmt.Sprintf("warning: %d skill(s) do not serve the skill://<path> alias (%s); clients that read a skill by its root URI get nothing", len(refused), firstProblems(refused))
		if res.status == StatusSkip {
			return skip("%s", note)
		}
		res.detail += "; " + note
	}
	return res
}

// checkPromptXML reads skill://prompt-xml when listed: XML with an
// <available_skills> root whose every <skill> has a name, description
// and a location that is a listed SKILL.md URI.
func (r *runner) checkPromptXML() outcome {
	w, _, out, ok := r.needSkillResources()
	if !ok {
		return out
	}
	if !r.listedURI(promptXMLURI) {
		return skip("server does not list %s", promptXMLURI)
	}
	content, _, problem, err := r.readOne(w, promptXMLURI)
	switch {
	case err != nil:
		return fail("%v", err)
	case problem != "":
		return fail("%s", problem)
	case content.Text == nil:
		return fail("%s: content is a blob, want XML text", promptXMLURI)
	}
	skills, perr := parsePromptXML(*content.Text)
	if perr != nil {
		return fail("%s: %v", promptXMLURI, perr)
	}
	for _, s := range skills {
		loc := strings.TrimSpace(*s.Location)
		if _, isSkill := skillPathOf(loc); !isSkill || !r.listedURI(loc) {
			return fail("%s: <skill> %q has location %q, which is not a listed skill://<path>/%s resource", promptXMLURI, strings.TrimSpace(*s.Name), loc, skillFile)
		}
	}
	return pass("%d skills, each located at a listed %s", len(skills), skillFile)
}

// checkUnknownResource reads a skill URI no server serves: the answer
// must be an error (-32002 in legacy revisions, -32602 from 2026-07-28
// on; either is accepted here), never an empty contents list.
func (r *runner) checkUnknownResource() outcome {
	w, out, ok := r.needResources()
	if !ok {
		return out
	}
	return r.unknownResource(w, codeResourceNotFound, codeInvalidParams)
}

// unknownResource reads an unserved skill URI in w's era and accepts the
// given error codes.
func (r *runner) unknownResource(w wire, codes ...int) outcome {
	uri := skillFileURI(unknownSkillName(), skillFile)
	m, err := w.c.call(r.ctx, "resources/read", w.params(map[string]any{"uri": uri}))
	if err != nil {
		return fail("%v", err)
	}
	want := make([]string, len(codes))
	for i, c := range codes {
		want[i] = strconv.Itoa(c)
	}
	switch {
	case m.Error == nil:
		return fail("reading %s answered a result (%s); an unknown resource is an error (%s), never an empty contents list", uri, countContents(m.Result)+" contents", strings.Join(want, " or "))
	case !slices.Contains(codes, m.Error.Code):
		return fail("reading %s answered %v, want code %s", uri, m.Error, strings.Join(want, " or "))
	}
	return pass("%s: %v", uri, m.Error)
}

// unknownSkillName is a skill path no server serves: random, so a server
// cannot special-case it.
func unknownSkillName() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "selftest-nonexistent-skill-" + hex.EncodeToString(b)
}

// templateInfo is the part of a ResourceTemplate the checks read.
type templateInfo struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
}

// checkTemplates lists resource templates when the server offers
// resources/templates/list (it is optional: -32601 skips).
func (r *runner) checkTemplates() outcome {
	w, out, ok := r.needResources()
	if !ok {
		return out
	}
	templates, out, ok := r.listTemplates(w)
	if !ok {
		return out
	}
	r.templates = templates
	return pass("%d resource templates", len(templates))
}

// listTemplates pages through resources/templates/list in w's era and
// checks each entry has a uriTemplate and a name.
func (r *runner) listTemplates(w wire) ([]templateInfo, outcome, bool) {
	m, err := w.c.call(r.ctx, "resources/templates/list", w.params(nil))
	if err != nil {
		return nil, fail("%v", err), false
	}
	if m.Error != nil && m.Error.Code == codeMethodNotFound {
		return nil, skip("server does not offer resources/templates/list (%v)", m.Error), false
	}
	var all []templateInfo
	_, err = r.paginateIn(w, "resources/templates/list", nil, func(raw json.RawMessage) (string, error) {
		var page struct {
			Templates  []templateInfo `json:"resourceTemplates"`
			NextCursor string         `json:"nextCursor"`
		}
		if json.Unmarshal(raw, &page) != nil || page.Templates == nil {
			return "", fmt.Errorf("resources/templates/list result has no \"resourceTemplates\" array: %s", textclip.Bytes(string(raw), 80))
		}
		all = append(all, page.Templates...)
		return page.NextCursor, nil
	})
	if err != nil {
		return nil, fail("%v", err), false
	}
	for i, t := range all {
		if t.URITemplate == "" || t.Name == "" {
			return nil, fail("resource template #%d needs a uriTemplate and a name, got uriTemplate %q name %q", i+1, t.URITemplate, t.Name), false
		}
	}
	return all, outcome{}, true
}
