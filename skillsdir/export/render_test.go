package export_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/agent3md/agent3md/internal/testkit"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir/export"
)

// The renderer is tested through package loader, which builds its Doc
// from an open agent file: that is how every caller reaches it.

var bg = context.Background()

// head is an agent file's frontmatter and identity, for tests to append
// skill planes to.
const head = "---\n3md: 1.0\ntitle: T\nmodel: m\ntools: sh, printf\n---\n@plane z=0 label=\"T\" kind=identity\n# T\nIdentity text.\n\n"

// vector is the path of a conformance vector of the agent layer.
func vector(name string) string {
	return filepath.Join("..", "..", "agentfile", "testdata", "conformance", "agent3md", name)
}

// openText opens an agent written from text and closes it with the test.
func openText(t testing.TB, text string) *loader.Agent {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.3md")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return openPath(t, p)
}

func openPath(t testing.TB, path string) *loader.Agent {
	t.Helper()
	a, err := loader.Open(path, nil)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// topKeys are the frontmatter fields besides name, description and
// metadata that a rendering may write (docs/format.md §15).
var topKeys = []string{"license", "compatibility", "argument-hint", "disable-model-invocation", "user-invocable", "model", "effort"}

// validName is the Agent Skills name rule without its look-ahead (RE2 has
// none): the "no --" part is checked separately.
var validName = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

func checkName(t *testing.T, s string) {
	t.Helper()
	if !validName.MatchString(s) || strings.Contains(s, "--") {
		t.Errorf("slug %q is not a valid Agent Skills name", s)
	}
}

// parseFrontmatter splits a SKILL.md and decodes its frontmatter the way a
// host would.
func parseFrontmatter(t *testing.T, text []byte) (map[string]any, string) {
	t.Helper()
	rest, ok := bytes.CutPrefix(text, []byte("---\n"))
	if !ok {
		t.Fatalf("SKILL.md does not start with ---:\n%s", text)
	}
	fm, body, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		t.Fatalf("frontmatter not closed:\n%s", text)
	}
	var m map[string]any
	if err := yaml.Unmarshal(fm, &m); err != nil {
		t.Fatalf("yaml: %v\n%s", err, fm)
	}
	return m, string(body)
}

func checkRendered(t *testing.T, r *export.Rendered) map[string]any {
	t.Helper()
	checkName(t, r.Slug)
	m, _ := parseFrontmatter(t, r.Text)
	if !reflect.DeepEqual(m, r.Frontmatter) {
		t.Fatalf("YAML yields\n%#v\nFrontmatter is\n%#v", m, r.Frontmatter)
	}
	for k := range m {
		if k != "name" && k != "description" && k != "metadata" && !slices.Contains(topKeys, k) {
			t.Errorf("unexpected top-level key %q", k)
		}
	}
	if m["name"] != r.Slug {
		t.Errorf("name %v != slug %s", m["name"], r.Slug)
	}
	d, _ := m["description"].(string)
	if n := len([]rune(d)); n < 1 || n > 1024 {
		t.Errorf("description has %d characters", n)
	}
	if meta, ok := m["metadata"].(map[string]any); ok {
		for k, v := range meta {
			if _, ok := v.(string); !ok {
				t.Errorf("metadata %s is %T, want string", k, v)
			}
		}
	}
	if h := sha256.Sum256(r.Text); hex.EncodeToString(h[:]) != r.SHA256 {
		t.Error("SHA256 does not match Text")
	}
	for _, ref := range r.References {
		if h := sha256.Sum256(ref.Text); hex.EncodeToString(h[:]) != ref.SHA256 {
			t.Errorf("%s: SHA256 does not match Text", ref.Path)
		}
	}
	return m
}

func TestSkillMDVector(t *testing.T) {
	a := openPath(t, vector("valid-deps.3md"))
	r, err := a.SkillMD(bg, "answer")
	if err != nil {
		t.Fatal(err)
	}
	checkRendered(t, r)
	want := `---
name: "answer"
description: "Answer a question, then attach sources with cite."
metadata:
  label: "answer"
  z: "1"
  triggers: "answer, ask, question"
---
# Skill: answer
Answer a question, then attach sources with [cite](references/cite.md).

This skill belongs to the agent Deps: read its identity and rules in [AGENT.md](references/AGENT.md) before acting.
`
	if string(r.Text) != want {
		t.Fatalf("SKILL.md:\n%s\nwant:\n%s", r.Text, want)
	}
	if len(r.References) != 2 {
		t.Fatalf("%d references", len(r.References))
	}
	ref := r.References[0]
	if ref.Path != "references/cite.md" || ref.Skill != "cite" ||
		string(ref.Text) != "# Skill: cite\nAttach a verifiable source to each claim.\n" {
		t.Fatalf("reference %+v", ref)
	}
	// The identity comes last, as export writes it: the team's rules
	// travel with every skill (RenderFolder).
	id := r.References[1]
	if id.Path != "references/AGENT.md" || string(id.Text) != "# Deps\n\n- model: claude-opus-4-8\n\n# Deps\nDemonstrates skill dependencies via cross-plane links.\n" {
		t.Fatalf("identity reference %+v\n%s", id, id.Text)
	}
	again, err := a.SkillMD(bg, "answer")
	if err != nil || !reflect.DeepEqual(again, r) {
		t.Fatal("rendering twice gave different results")
	}
}

func TestSkillMDLinksAndReferences(t *testing.T) {
	a := openText(t, head+
		"@plane z=1 label=\"Build It\" triggers=\"build, compile\"\n"+
		"Run [[z=2]] then [[z=3|the [tests\\]]], see [[z=0|rules]], [[z=9]] and [[z=2.0]]; me: [[z=1|here]].\n\n"+
		"@plane z=2 label=lint\nlint, then back to [[z=1]] and on to [[z=3|tests]]\n\n"+
		"@plane z=3 label=test\n[[z=3]]\n\n"+
		"@plane z=4 label=only-heading triggers=\"build, compile\"\n# Only a heading\n")
	r, err := a.SkillMD(bg, "Build It")
	if err != nil {
		t.Fatal(err)
	}
	m := checkRendered(t, r)
	if r.Slug != "build-it" {
		t.Fatalf("slug %q", r.Slug)
	}
	_, body := parseFrontmatter(t, r.Text)
	want := "Run [lint](references/lint.md) then [the \\[tests\\\\](references/test.md)], see [[z=0|rules]], [[z=9]] and [[z=2.0]]; me: [here](SKILL.md).\n\nThis skill belongs to the agent T: read its identity and rules in [AGENT.md](references/AGENT.md) before acting.\n"
	if body != want {
		t.Fatalf("body\n%q\nwant\n%q", body, want)
	}
	if want := "Run lint then the [tests], see rules, [[z=9]] and lint; me: here."; m["description"] != want {
		t.Fatalf("description %q, want %q", m["description"], want)
	}
	r4, err := a.SkillMD(bg, "only-heading")
	if err != nil {
		t.Fatal(err)
	}
	if d := checkRendered(t, r4)["description"]; d != "Use when a request mentions build, compile." {
		t.Fatalf("description from triggers: %q", d)
	}
	var paths []string
	for _, ref := range r.References {
		paths = append(paths, ref.Path)
	}
	if !reflect.DeepEqual(paths, []string{"references/lint.md", "references/test.md", "references/AGENT.md"}) {
		t.Fatalf("references %v", paths)
	}
	if got := string(r.References[0].Text); got != "lint, then back to [Build It](../SKILL.md) and on to [tests](test.md)\n" {
		t.Fatalf("lint reference %q", got)
	}
	if got := string(r.References[1].Text); got != "[test](test.md)\n" {
		t.Fatalf("test reference %q", got)
	}
}

func TestSkillMDHostileStrings(t *testing.T) {
	labels := []string{
		"yes", "123", "null", "~", "a: b # c", `quote " and \ backslash`, "- item",
		"日本語", "tab\there", "[flow]", "{x: 1}", "&anchor", "*alias", "!tag", "%percent", "@at", "`tick`",
		"line\u2028sep", "nel\u0085x", "bom\ufeffx", "bell\x07", "del\x7f", "c1\u0090x", "emoji 🙂",
	}
	var b strings.Builder
	b.WriteString(head)
	for i, l := range labels {
		b.WriteString("@plane z=" + string(rune('1'+i%9)) + strings.Repeat("0", i/9) + " label=\"" + strings.ReplaceAll(strings.ReplaceAll(l, `\`, `\\`), `"`, `\"`) + "\"")
		b.WriteString(" triggers=\"" + strings.ReplaceAll(l, `"`, `'`) + ", 0x1F\" inputs=\"q:number?\" tool=\"run '{q}' # " + strings.ReplaceAll(l, `"`, `'`) + "\" cost=\"1.5\"\n")
		b.WriteString("# " + l + "\n\n" + l + "\n\n")
	}
	a := openText(t, b.String())
	seen := map[string]bool{}
	for _, s := range a.Skills() {
		r, err := a.SkillMD(bg, s.Name)
		if err != nil {
			t.Fatal(err)
		}
		m := checkRendered(t, r)
		if seen[r.Slug] {
			t.Errorf("slug %q used twice", r.Slug)
		}
		seen[r.Slug] = true
		meta := m["metadata"].(map[string]any)
		if meta["label"] != s.Name || meta["cost"] != "1.5" || meta["inputs"] != "q:number?" {
			t.Errorf("metadata for %q: %#v", s.Name, meta)
		}
	}
}

func TestSlugs(t *testing.T) {
	long := strings.Repeat("abcdefghij", 8)
	// "Skill-5" is a name of its own (a label "skill-5" would clash with
	// the unlabelled z=5, which Open refuses) whose slug collides.
	names := []string{"Deploy", "deploy", "DEPLOY!", "deploy-z2", "", "日本", "--a--b--", long, long + "x", "Skill-5"}
	var b strings.Builder
	b.WriteString(head)
	for i, n := range names {
		z := string(rune('1' + i))
		if i == 9 {
			z = "10"
		}
		if n == "" {
			b.WriteString("@plane z=" + z + "\nbody\n")
			continue
		}
		b.WriteString("@plane z=" + z + " label=\"" + n + "\"\nbody\n")
	}
	a := openText(t, b.String())
	var got []string
	for _, s := range a.Skills() {
		got = append(got, s.Slug)
		checkName(t, s.Slug)
	}
	want := []string{
		"deploy", "deploy-z2-2", "deploy-z3", "deploy-z2", "skill-5", "skill-6",
		"a-b", long[:64], long[:61] + "-z9", "skill-5-z10",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("slugs\n got %q\nwant %q", got, want)
	}
	for i, s := range a.Skills() {
		sk, err := a.SkillBySlug(s.Slug)
		if err != nil || sk.Z != a.Info().Skills[i].Z {
			t.Fatalf("SkillBySlug(%q) = %v, %v", s.Slug, sk, err)
		}
		r, err := a.SkillMDBySlug(bg, s.Slug)
		if err != nil || r.Slug != s.Slug {
			t.Fatalf("SkillMDBySlug(%q) = %v, %v", s.Slug, r, err)
		}
	}
}

// A plane's license= and compatibility= attributes (what import keeps of
// an Agent Skills frontmatter) are written back as those frontmatter
// fields, and description= as the whole description, which the body's
// first paragraph keeps only to 500 characters. allowed-tools= is not: in
// a SKILL.md it pre-approves tools, which an attribute the agent format
// ignores must not do.
func TestSkillMDCarriesAgentSkillsFields(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("Use it for PDF files. ", 40))
	a := openText(t, head+`@plane z=1 label="pdf" license="Complete terms in LICENSE.txt" compatibility="Needs python3: pypdf" allowed-tools="Bash(*)" hooks="x" disable-model-invocation=true user-invocable=maybe model=haiku description="`+long+`"
`+long+`

Body.

@plane z=2 label="plain"
Plain skill.
`)
	r, err := a.SkillMD(bg, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	m := checkRendered(t, r)
	for k, want := range map[string]string{"license": "Complete terms in LICENSE.txt", "compatibility": "Needs python3: pypdf", "description": long} {
		if m[k] != want {
			t.Errorf("%s = %#v, want %q", k, m[k], want)
		}
	}
	for _, k := range []string{"allowed-tools", "hooks", "user-invocable"} {
		if v, ok := m[k]; ok {
			t.Errorf("%s written: %#v", k, v)
		}
	}
	// A boolean, as Claude Code reads it; "maybe" is no boolean: left out.
	if m["disable-model-invocation"] != true || m["model"] != "haiku" {
		t.Errorf("disable-model-invocation %#v, model %#v", m["disable-model-invocation"], m["model"])
	}
	r, err = a.SkillMD(bg, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if m := checkRendered(t, r); len(m) != 3 || m["description"] != "Plain skill." {
		t.Errorf("a plane without those attributes gains keys: %#v", m)
	}
}

// agentFiles are the agent files the renderer is tried on: the bundled
// examples and every agent of agentfile's test data.
func agentFiles(t *testing.T) []string { return testkit.AgentFiles(t, "../..", 45) }

// TestRenderEveryAgent renders every skill of every agent that opens: each
// SKILL.md is valid Agent Skills YAML that reads back as its Frontmatter.
func TestRenderEveryAgent(t *testing.T) {
	rendered := 0
	for _, path := range agentFiles(t) {
		a, err := loader.Open(path, nil)
		if err != nil {
			continue // agentfile's tests say why it does not open
		}
		for _, s := range a.Skills() {
			r, err := a.SkillMDBySlug(bg, s.Slug)
			if err != nil {
				t.Fatalf("%s: %s: %v", path, s.Name, err)
			}
			checkRendered(t, r)
			rendered++
		}
		a.Close()
	}
	if rendered < 50 {
		t.Fatalf("rendered only %d skills", rendered)
	}
}
