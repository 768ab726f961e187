package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const skillsFixture = "testdata/skillsdir"

// TestValidateDir checks each fixture skill on its own (a folder holding
// SKILL.md is itself a skill) and the whole fixture folder: the exit
// status and the finding lines, with file, line and rule.
func TestValidateDir(t *testing.T) {
	sk := func(name string) string { return filepath.Join(skillsFixture, name) }
	md := func(name string) string { return filepath.Join(skillsFixture, name, "SKILL.md") }
	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of stdout
		not  []string
	}{
		{"valid", []string{"validate", sk("good")}, 0, []string{md("good") + ": ok (0 errors, 0 warnings)"}, nil},
		{"valid with tool", []string{"validate", sk("good-tool")}, 0, []string{md("good-tool") + ": ok"}, nil},
		{"broken frontmatter", []string{"validate", sk("broken-yaml")}, 1, []string{md("broken-yaml") + ":2: error [frontmatter]: frontmatter is not valid YAML"}, nil},
		{"no frontmatter", []string{"validate", sk("no-frontmatter")}, 1, []string{md("no-frontmatter") + ":1: error [frontmatter]"}, nil},
		{"name mismatch", []string{"validate", sk("mismatch")}, 1, []string{md("mismatch") + `:2: error [name-mismatch]: name "not-mismatch" differs from its folder "mismatch"`}, nil},
		{"description too long warns only", []string{"validate", sk("long-description")}, 0, []string{
			md("long-description") + ": ok (0 errors, 1 warnings)",
			md("long-description") + ":3: warning [description-length]: description has 1153 characters, over the Agent Skills limit of 1024",
		}, nil},
		{"unknown keys warn only", []string{"validate", sk("unknown-keys")}, 0, []string{
			md("unknown-keys") + ": ok (0 errors, 2 warnings)",
			md("unknown-keys") + `:4: warning [unknown-key]: top-level key "version"`,
			md("unknown-keys") + `:5: warning [unknown-key]: top-level key "author"`,
		}, nil},
		{"whole folder", []string{"validate", skillsFixture}, 1, []string{
			md("good") + ": ok", md("good-tool") + ": ok", md("unknown-keys") + ": ok", md("long-description") + ": ok",
			md("broken-yaml") + ": invalid", md("mismatch") + ": invalid", md("no-frontmatter") + ": invalid",
		}, []string{"README.md"}},
		{"folder and file mixed", []string{"validate", sk("good"), devtools}, 0, []string{md("good") + ": ok", devtools + ": ok"}, nil},
		{"folder errors win over a good file", []string{"validate", devtools, sk("mismatch")}, 1, []string{devtools + ": ok", "[name-mismatch]"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := cli(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("stdout holds %q:\n%s", n, out)
				}
			}
		})
	}
}

// TestValidateDirJSON checks the JSON shape: an array of validate's
// per-file reports, one per skill, with the skill's name.
func TestValidateDirJSON(t *testing.T) {
	code, out, _ := cli(t, "validate", "--json", skillsFixture)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var reports []struct {
		File   string `json:"file"`
		Skill  string `json:"skill"`
		OK     bool   `json:"ok"`
		Errors []struct {
			Rule string `json:"rule"`
			Line int    `json:"line"`
		} `json:"errors"`
		Warnings []struct {
			Rule string `json:"rule"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("not a JSON array of reports: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, r := range reports {
		v := "ok"
		if !r.OK {
			v = r.Errors[0].Rule
		}
		got[r.Skill] = v
		if r.File != filepath.Join(skillsFixture, r.Skill, "SKILL.md") {
			t.Errorf("skill %s reported for file %s", r.Skill, r.File)
		}
	}
	want := map[string]string{"good": "ok", "good-tool": "ok", "unknown-keys": "ok", "broken-yaml": "frontmatter",
		"no-frontmatter": "frontmatter", "mismatch": "name-mismatch", "long-description": "ok"}
	if len(got) != len(want) {
		t.Errorf("got reports %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("skill %s: got %q, want %q", k, got[k], v)
		}
	}
	// One folder argument is still an array; one file is still an object.
	_, out, _ = cli(t, "validate", "--json", filepath.Join(skillsFixture, "good"))
	if !strings.HasPrefix(strings.TrimSpace(out), "[") {
		t.Errorf("one folder should print an array:\n%s", out)
	}
}

// TestValidateDirClash: two folders with one skill name are reported as an
// invalid folder (exit 1) naming both.
func TestValidateDirClash(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/same", "b/same"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, d, "SKILL.md"), []byte("---\nname: same\ndescription: x\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := cli(t, "validate", dir)
	if code != 1 || !strings.Contains(out, "[name-clash]") || !strings.Contains(out, filepath.Join("a", "same")) || !strings.Contains(out, filepath.Join("b", "same")) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestValidateDirFileFinding: a finding about another file of a skill is
// printed with that file's path and counted in its skill's report.
func TestValidateDirFileFinding(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, "linky")
	if err := os.MkdirAll(skill, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: linky\ndescription: Use when testing links.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(skill, "escape")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	code, out, _ := cli(t, "validate", dir)
	want := filepath.Join(skill, "escape") + ":0: warning [symlink-escape]: escape: "
	if code != 0 || !strings.Contains(out, filepath.Join(skill, "SKILL.md")+": ok (0 errors, 1 warnings)") || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want 0 and %q:\n%s", code, want, out)
	}
}

// TestValidateDirFolderFinding: a finding about a whole skill folder (too
// many files), of a served or a broken skill, is counted in that skill's
// report, not in one of a SKILL.md in the folder above.
func TestValidateDirFolderFinding(t *testing.T) {
	dir := t.TempDir()
	for name, md := range map[string]string{"big": "---\nname: big\ndescription: Use when testing sizes.\n---\n", "bad": "no frontmatter\n"} {
		skill := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(skill, "many"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		for i := range 520 {
			if err := os.WriteFile(filepath.Join(skill, "many", fmt.Sprintf("f%d.txt", i)), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, out, _ := cli(t, "validate", dir)
	for _, want := range []string{
		filepath.Join(dir, "big", "SKILL.md") + ": ok (0 errors, 1 warnings)",
		filepath.Join(dir, "big") + ":0: warning [too-many-files]: skill has more than 512 files",
		filepath.Join(dir, "bad", "SKILL.md") + ": invalid (1 errors, 1 warnings)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, filepath.Join(dir, "SKILL.md")) {
		t.Errorf("a report names %s, which does not exist:\n%s", filepath.Join(dir, "SKILL.md"), out)
	}
}

// TestValidateDirEveryClash: validate names every name used twice, one
// name-clash error each.
func TestValidateDirEveryClash(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a/deploy", "b/deploy", "a/lint", "b/lint"} {
		skill := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(skill, 0o755); err != nil {
			t.Fatal(err)
		}
		md := "---\nname: " + filepath.Base(p) + "\ndescription: x\n---\n"
		if err := os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := cli(t, "validate", dir)
	if code != 1 || !strings.Contains(out, "invalid (2 errors") || !strings.Contains(out, `skill "deploy" is defined twice`) || !strings.Contains(out, `skill "lint" is defined twice`) {
		t.Errorf("exit %d, want 1 and a name-clash error for deploy and for lint:\n%s", code, out)
	}
}
