package skillsdir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
)

func TestScanFixture(t *testing.T) {
	c := scan(t, nil, filepath.Join("testdata", "tree"))
	want := []string{"build", "deploy", "lint", "rules", "search-code", "warn-keys"}
	if got := names(c); !slices.Equal(got, want) {
		t.Fatalf("served %v, want %v; findings %v", got, want, c.Findings())
	}
	fs := c.Findings()
	tests := []struct {
		rule, path string
		line       int
		sev        Severity
	}{
		// The line is the YAML library's: for an unclosed flow it names
		// the line before the one that opens it.
		{RuleFrontmatter, "broken-yaml/SKILL.md", 2, SeverityError},
		{RuleNameMismatch, "mismatch/SKILL.md", 2, SeverityError},
		{RuleFrontmatter, "no-frontmatter/SKILL.md", 1, SeverityError},
		{RuleYAMLAlias, "alias/SKILL.md", 3, SeverityError},
		{RuleUnknownKey, "warn-keys/SKILL.md", 4, SeverityWarning},
		{RuleUnknownKey, "warn-keys/SKILL.md", 5, SeverityWarning},
		{RuleYAMLTimestamp, "warn-keys/SKILL.md", 5, SeverityWarning},
		{RuleMetadata, "warn-keys/SKILL.md", 7, SeverityWarning},
	}
	for _, tt := range tests {
		t.Run(tt.rule+"/"+tt.path, func(t *testing.T) {
			ok := slices.ContainsFunc(fs, func(f Finding) bool {
				return f.Rule == tt.rule && f.Line == tt.line && f.Severity == tt.sev && strings.HasSuffix(filepath.ToSlash(f.Path), tt.path)
			})
			if !ok {
				t.Errorf("no %s %s finding at %s:%d in\n%v", tt.sev, tt.rule, tt.path, tt.line, fs)
			}
		})
	}
	for _, f := range fs {
		if strings.Contains(f.Path, ".hidden") || strings.Contains(f.Path, "notes") {
			t.Errorf("finding about a folder that is not a skill: %v", f)
		}
	}
	// The broken folders are exactly those with an error finding.
	var broken []string
	for _, d := range c.Broken() {
		broken = append(broken, filepath.Base(d))
	}
	if want := []string{"alias", "broken-yaml", "mismatch", "no-frontmatter"}; !slices.Equal(broken, want) {
		t.Errorf("broken %v, want %v", broken, want)
	}
}

func TestSkillFields(t *testing.T) {
	c := scan(t, nil, filepath.Join("testdata", "tree"))
	d := mustSkill(t, c, "deploy")
	if d.Description != "Deploy the app. Use when asked to ship or release." {
		t.Errorf("description %q", d.Description)
	}
	if want := []string{"ship it", "release", "deploy"}; !slices.Equal(d.Triggers, want) {
		t.Errorf("triggers %q, want %q", d.Triggers, want)
	}
	wantIn := []agentfile.Input{{Name: "env", Type: "string"}, {Name: "dry", Type: "boolean", Optional: true}}
	if !slices.Equal(d.Inputs, wantIn) {
		t.Errorf("inputs %+v, want %+v", d.Inputs, wantIn)
	}
	if !d.HasTool || d.Tool != "make deploy ENV={env} DRY={dry}" {
		t.Errorf("tool %q %v", d.Tool, d.HasTool)
	}
	if want := []string{"build", "lint"}; !slices.Equal(d.Deps, want) {
		t.Errorf("deps %v, want %v", d.Deps, want)
	}
	if want := []string{"SKILL.md", "references/build.md", "scripts/run.sh"}; !slices.Equal(paths(d), want) {
		t.Errorf("files %v, want %v", paths(d), want)
	}
	meta, _ := d.Frontmatter["metadata"].(map[string]any)
	if d.Frontmatter["license"] != "MIT" || meta["z"] != "3" {
		t.Errorf("frontmatter %v", d.Frontmatter)
	}
	if d.Rel != "deploy" || d.Parent != "" {
		t.Errorf("rel %q parent %q", d.Rel, d.Parent)
	}
	s := mustSkill(t, c, "search-code")
	if !s.HasTool || s.Tool != "rg {pattern} {path}" || len(s.Inputs) != 2 || s.Rel != "collection/group/search-code" {
		t.Errorf("search-code: tool %q inputs %+v rel %q", s.Tool, s.Inputs, s.Rel)
	}
	if len(s.Findings) != 0 {
		t.Errorf("search-code findings %v", s.Findings)
	}
}

func TestNestedSkill(t *testing.T) {
	c := scan(t, nil, filepath.Join("testdata", "tree"))
	lint, rules := mustSkill(t, c, "lint"), mustSkill(t, c, "rules")
	if rules.Parent != "lint" || rules.Rel != "lint/rules" {
		t.Errorf("rules parent %q rel %q", rules.Parent, rules.Rel)
	}
	if want := []string{"SKILL.md", "rules/SKILL.md"}; !slices.Equal(paths(lint), want) {
		t.Errorf("lint files %v, want %v (nested skills' files belong to the enclosing skill too)", paths(lint), want)
	}
	if want := []string{"rules"}; !slices.Equal(lint.Deps, want) {
		t.Errorf("lint deps %v, want %v", lint.Deps, want)
	}
}

func TestNameClash(t *testing.T) {
	tree, other := filepath.Join("testdata", "tree"), filepath.Join("testdata", "other")
	_, err := Scan(context.Background(), []string{tree, other}, nil)
	var ce *ClashError
	if !errors.As(err, &ce) || !errors.Is(err, ErrNameClash) {
		t.Fatalf("err = %v, want a *ClashError", err)
	}
	a, _ := filepath.Abs(filepath.Join(tree, "deploy", "SKILL.md"))
	b, _ := filepath.Abs(filepath.Join(other, "deploy", "SKILL.md"))
	if ce.Name != "deploy" || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Errorf("clash error %q does not name both %s and %s", err, a, b)
	}
}

func TestRootErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	write(t, file, "x")
	for _, root := range []string{filepath.Join(dir, "missing"), file} {
		if _, err := Scan(context.Background(), []string{root}, nil); err == nil || !strings.Contains(err.Error(), root) {
			t.Errorf("Scan(%s) = %v, want an error naming it", root, err)
		}
	}
}

// A root that is itself a skill folder serves that one skill.
func TestRootIsSkill(t *testing.T) {
	c := scan(t, nil, filepath.Join("testdata", "tree", "deploy"))
	if got := names(c); !slices.Equal(got, []string{"deploy"}) {
		t.Errorf("served %v", got)
	}
}

func TestMaxDepth(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a", "b", "c", "deep", "SKILL.md"), skillMD("deep", "", ""))
	for _, tt := range []struct {
		depth int
		want  []string
	}{{3, nil}, {4, []string{"deep"}}} {
		t.Run(fmt.Sprint(tt.depth), func(t *testing.T) {
			if got := names(scan(t, &Options{MaxDepth: tt.depth}, root)); !slices.Equal(got, tt.want) {
				t.Errorf("MaxDepth %d served %v, want %v", tt.depth, got, tt.want)
			}
		})
	}
}

func TestMaxSkills(t *testing.T) {
	root := t.TempDir()
	generate(t, root, 5)
	if c := scan(t, &Options{MaxSkills: 5}, root); c.Len() != 5 {
		t.Errorf("served %d", c.Len())
	}
	if _, err := Scan(context.Background(), []string{root}, &Options{MaxSkills: 4}); !errors.Is(err, ErrTooManySkills) {
		t.Errorf("err = %v, want ErrTooManySkills", err)
	}
}

func TestFileLimits(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "many")
	write(t, filepath.Join(dir, "SKILL.md"), skillMD("many", "", ""))
	write(t, filepath.Join(dir, "a.txt"), strings.Repeat("a", 100))
	write(t, filepath.Join(dir, "b.txt"), strings.Repeat("b", 100))
	md := int64(len(skillMD("many", "", "")))
	size := md + 200
	tests := []struct {
		name      string
		opts      Options
		files     int
		truncated bool
		rule      string
	}{
		{"files at limit", Options{MaxFilesPerSkill: 3}, 3, false, ""},
		{"files over limit", Options{MaxFilesPerSkill: 2}, 2, true, RuleTooManyFiles},
		{"bytes at limit", Options{MaxSkillBytes: size}, 3, false, ""},
		{"bytes over limit", Options{MaxSkillBytes: size - 1}, 3, false, RuleSkillTooLarge},
		{"file at size limit", Options{MaxFileBytes: 100}, 3, false, ""},
		{"file over size limit", Options{MaxFileBytes: 99}, 1, false, RuleFileTooLarge},
		{"SKILL.md over size limit", Options{MaxFileBytes: md - 1}, 0, false, RuleSkillMD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := scan(t, &tt.opts, root)
			if tt.rule == RuleSkillMD {
				// SKILL.md itself over MaxFileBytes: the skill is broken.
				if c.Len() != 0 || !hasFinding(c.Findings(), RuleSkillMD, "SKILL.md") {
					t.Errorf("served %v findings %v", names(c), c.Findings())
				}
				return
			}
			s := mustSkill(t, c, "many")
			if len(s.Files) != tt.files || s.Truncated != tt.truncated {
				t.Errorf("files %v truncated %v", paths(s), s.Truncated)
			}
			if got := len(s.Findings) > 0; got != (tt.rule != "") || tt.rule != "" && !hasFinding(s.Findings, tt.rule, "") {
				t.Errorf("findings %v, want rule %q", s.Findings, tt.rule)
			}
		})
	}
}

func TestGenerated1000(t *testing.T) {
	root := t.TempDir()
	generate(t, root, 1000)
	c := scan(t, &Options{Workers: 4}, root)
	if c.Len() != 1000 || len(c.Findings()) != 0 {
		t.Fatalf("served %d, findings %v", c.Len(), c.Findings())
	}
	s := mustSkill(t, c, "skill-00500")
	if want := []string{"skill-00499"}; !slices.Equal(s.Deps, want) || !slices.Equal(s.Triggers, []string{"task skill-00500"}) {
		t.Errorf("skill-00500 deps %v triggers %v", s.Deps, s.Triggers)
	}
	if want := []string{"SKILL.md", "references/notes.md"}; !slices.Equal(paths(s), want) {
		t.Errorf("files %v", paths(s))
	}
}

func TestScanCanceled(t *testing.T) {
	root := t.TempDir()
	generate(t, root, 20)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Scan(ctx, []string{root}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestWellKnown(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	want := map[string]string{
		"claude": ".claude/skills", "cursor": ".cursor/skills",
		"codex": ".codex/skills", "agents": ".config/agents/skills",
	}
	got := WellKnown()
	if len(got) != len(want) {
		t.Fatalf("WellKnown() = %v", got)
	}
	for _, l := range got {
		if l.Path != filepath.Join(home, filepath.FromSlash(want[l.Name])) {
			t.Errorf("%s: %s", l.Name, l.Path)
		}
	}
}

func TestHiddenAndSpecialSkipped(t *testing.T) {
	root := copyTree(t, "tree")
	write(t, filepath.Join(root, "deploy", ".env"), "SECRET=1")
	c := scan(t, nil, root)
	if slices.Contains(paths(mustSkill(t, c, "deploy")), ".env") {
		t.Error(".env is served")
	}
	if _, err := c.ReadFile(context.Background(), "deploy", ".env"); !errors.Is(err, ErrNotFound) {
		t.Errorf("reading .env: %v", err)
	}
}

func TestNestedTooDeep(t *testing.T) {
	root := t.TempDir()
	parent := filepath.Join(root, "a", "b", "c", "parent")
	write(t, filepath.Join(parent, "SKILL.md"), skillMD("parent", "", ""))
	write(t, filepath.Join(parent, "child", "SKILL.md"), skillMD("child", "", ""))
	c := scan(t, nil, root)
	if got := names(c); !slices.Equal(got, []string{"parent"}) {
		t.Errorf("served %v", got)
	}
	if !hasFinding(c.Findings(), RuleNestedTooDeep, filepath.Join("child", "SKILL.md")) {
		t.Errorf("findings %v", c.Findings())
	}
	if !slices.Contains(paths(mustSkill(t, c, "parent")), "child/SKILL.md") {
		t.Error("the nested SKILL.md is not a file of its parent")
	}
}

// The default MaxFilesPerSkill (512) cuts a big folder's list.
func TestDefaultFileLimit(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "big")
	write(t, filepath.Join(dir, "SKILL.md"), skillMD("big", "", ""))
	for i := range 600 {
		write(t, filepath.Join(dir, "assets", fmt.Sprintf("f%03d.txt", i)), "x")
	}
	s := mustSkill(t, scan(t, nil, root), "big")
	// SKILL.md stays listed whatever order the folder lists its entries in.
	if len(s.Files) != DefaultMaxFilesPerSkill || !s.Truncated || !hasFinding(s.Findings, RuleTooManyFiles, "") || !slices.Contains(paths(s), "SKILL.md") {
		t.Errorf("%d files, truncated %v, findings %v", len(s.Files), s.Truncated, s.Findings)
	}
}

// A skill nested in a nested skill is served once, with the skill just
// above it as its parent: the walk of the outer skill sees both SKILL.md
// files, and the middle skill's own scan finds the inner one again.
func TestNestedTwoLevels(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "outer", "SKILL.md"), skillMD("outer", "", ""))
	write(t, filepath.Join(root, "outer", "middle", "SKILL.md"), skillMD("middle", "", ""))
	write(t, filepath.Join(root, "outer", "middle", "inner", "SKILL.md"), skillMD("inner", "", ""))
	c := scan(t, nil, root)
	if got, want := names(c), []string{"inner", "middle", "outer"}; !slices.Equal(got, want) {
		t.Fatalf("served %v, want %v", got, want)
	}
	if p := mustSkill(t, c, "inner").Parent; p != "middle" {
		t.Errorf("inner's parent %q, want middle", p)
	}
	if p := mustSkill(t, c, "middle").Parent; p != "outer" {
		t.Errorf("middle's parent %q, want outer", p)
	}
	// Past MaxDepth, the deepest one is warned of once, not twice.
	c = scan(t, &Options{MaxDepth: 2}, root)
	if got, want := names(c), []string{"middle", "outer"}; !slices.Equal(got, want) {
		t.Errorf("MaxDepth 2 served %v, want %v", got, want)
	}
	n := 0
	for _, f := range c.Findings() {
		if f.Rule == RuleNestedTooDeep {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d nested-too-deep findings, want 1: %v", n, c.Findings())
	}
}

// A folder whose SKILL.md is spelt skill.md is no skill (hosts look for
// SKILL.md), but the scan says so instead of skipping it without a word.
func TestSkillMDCase(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "good", "SKILL.md"), skillMD("good", "", ""))
	write(t, filepath.Join(root, "lower", "skill.md"), skillMD("lower", "", ""))
	c := scan(t, nil, root)
	if got := names(c); !slices.Equal(got, []string{"good"}) {
		t.Errorf("served %v", got)
	}
	if !hasFinding(c.Findings(), RuleSkillMDCase, filepath.Join("lower", "skill.md")) {
		t.Errorf("no %s finding for lower/skill.md: %v", RuleSkillMDCase, c.Findings())
	}
}

// One skill folder reached through two symlinks (one to it, one to the
// folder holding it) is one skill, not a name clash that stops the scan;
// and a symlink to a folder holding the root is not followed.
func TestSymlinkedTwice(t *testing.T) {
	base := t.TempDir()
	root, src := filepath.Join(base, "skills"), filepath.Join(base, "src")
	write(t, filepath.Join(src, "mine", "SKILL.md"), skillMD("mine", "", ""))
	write(t, filepath.Join(root, "own", "SKILL.md"), skillMD("own", "", "[mine](../mine/SKILL.md)\n"))
	write(t, filepath.Join(base, "other", "stray", "SKILL.md"), skillMD("stray", "", ""))
	for link, target := range map[string]string{"mine": filepath.Join(src, "mine"), "all": src, "up": ".."} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	c := scan(t, nil, root)
	if got, want := names(c), []string{"mine", "own"}; !slices.Equal(got, want) {
		t.Fatalf("served %v, want %v (findings %v)", got, want, c.Findings())
	}
	if s := mustSkill(t, c, "mine"); s.Rel != "all/mine" {
		t.Errorf("mine served from %q, want the first path in order, all/mine", s.Rel)
	}
	if deps := mustSkill(t, c, "own").Deps; !slices.Equal(deps, []string{"mine"}) {
		t.Errorf("own's deps %v: a link through the other path still names mine", deps)
	}
}

// A SKILL.md that is a symlink out of its folder (GNU Stow, Home Manager)
// is refused with a message that says what to link instead.
func TestSkillMDSymlinkedOut(t *testing.T) {
	base := t.TempDir()
	write(t, filepath.Join(base, "dotfiles", "deploy", "SKILL.md"), skillMD("deploy", "", ""))
	dir := filepath.Join(base, "skills", "deploy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "dotfiles", "deploy", "SKILL.md"), filepath.Join(dir, "SKILL.md")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	c := scan(t, nil, filepath.Join(base, "skills"))
	var msg string
	for _, f := range c.Findings() {
		if f.Rule == RuleSkillMD {
			msg = f.Msg
		}
	}
	if want := "link the whole skill folder instead (make " + dir + " a symlink to " + filepath.Join(base, "dotfiles", "deploy") + ")"; !strings.Contains(msg, want) {
		t.Errorf("finding %q does not say %q", msg, want)
	}
}

// When a skill has more files than MaxFilesPerSkill (an npm install in
// the skill folder), the files kept are those nearest its SKILL.md, the
// same on every run: folders are read breadth first, in name order.
func TestFileLimitKeepsNearFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "web")
	write(t, filepath.Join(dir, "SKILL.md"), skillMD("web", "", ""))
	write(t, filepath.Join(dir, "scripts", "build.sh"), "x")
	write(t, filepath.Join(dir, "references", "api.md"), "x")
	for i := range 40 {
		write(t, filepath.Join(dir, "aaa_modules", fmt.Sprintf("p%02d", i), "lib", "index.js"), "x")
	}
	s := mustSkill(t, scan(t, &Options{MaxFilesPerSkill: 10}, root), "web")
	got := paths(s)
	for _, want := range []string{"SKILL.md", "references/api.md", "scripts/build.sh"} {
		if !slices.Contains(got, want) {
			t.Errorf("files %v lack %s", got, want)
		}
	}
	if !s.Truncated || len(got) != 10 {
		t.Errorf("%d files, truncated %v; want 10, cut", len(got), s.Truncated)
	}
	if again := paths(mustSkill(t, scan(t, &Options{MaxFilesPerSkill: 10}, root), "web")); !slices.Equal(again, got) {
		t.Errorf("a second scan keeps %v, the first %v", again, got)
	}
}

// Every name clash of a scan is reported, not only the first, so one run
// of validate names them all.
func TestEveryNameClash(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, root := range []string{a, b} {
		for _, name := range []string{"deploy", "lint", "only-" + filepath.Base(root)} {
			write(t, filepath.Join(root, name, "SKILL.md"), skillMD(name, "", ""))
		}
	}
	_, err := Scan(context.Background(), []string{a, b}, nil)
	var ce *ClashError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *ClashError", err)
	}
	if ce.Name != "deploy" || len(ce.Others) != 1 || ce.Others[0].Name != "lint" {
		t.Errorf("clashes %q and %+v, want deploy, then lint", ce.Name, ce.Others)
	}
	if !strings.Contains(err.Error(), `and 1 more names defined twice: "lint"`) {
		t.Errorf("error %q does not name lint", err)
	}
}

// A body link into the skill folder at a file it does not serve (renamed,
// hidden, never copied: what an exported skill keeps of its source's
// references/) is warned of with its line; links to served files and
// folders, to the folder itself, to other skills and to URLs are not.
func TestBrokenLinks(t *testing.T) {
	root := t.TempDir()
	body := "# Tool\n\nSee [the guide](references/guide.md) and [api](references/api.md#auth).\n\n" +
		"Run [scripts](scripts/) or [here](.) or [web](https://example.com/x.md) or [other](../other/SKILL.md).\n\n" +
		"Secrets in [env](.env).\n"
	write(t, filepath.Join(root, "tool", "SKILL.md"), skillMD("tool", "", body))
	write(t, filepath.Join(root, "tool", "references", "api.md"), "x")
	write(t, filepath.Join(root, "tool", "scripts", "run.sh"), "x")
	write(t, filepath.Join(root, "tool", ".env"), "x")
	write(t, filepath.Join(root, "other", "SKILL.md"), skillMD("other", "", ""))
	s := mustSkill(t, scan(t, nil, root), "tool")
	var got []string
	for _, f := range s.Findings {
		if f.Rule == RuleBrokenLink {
			got = append(got, fmt.Sprintf("%d %s", f.Line, strings.Fields(f.Msg)[4]))
		}
	}
	// SKILL.md: 4 lines of frontmatter, the body from line 5.
	if want := []string{"7 references/guide.md,", "11 .env,"}; !slices.Equal(got, want) {
		t.Errorf("broken links %q, want %q (findings %v)", got, want, s.Findings)
	}
}
