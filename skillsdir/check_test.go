package skillsdir

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckStopped: a scan a rule stops is one report of the root, with a
// finding per name clash (error severity, the root as its file), not an
// error: validate DIR names every clash in one run.
func TestCheckStopped(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"one/x", "two/x", "one/y", "two/y", "one/z"} {
		write(t, filepath.Join(root, p, "SKILL.md"), "---\nname: "+filepath.Base(p)+"\ndescription: A skill.\n---\nBody.\n")
	}
	reps, err := Check(context.Background(), root)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if len(reps) != 1 || reps[0].SkillMD != root || reps[0].Skill != "" {
		t.Fatalf("reports %+v, want root's alone", reps)
	}
	fs := reps[0].Findings
	if len(fs) != 2 {
		t.Fatalf("findings %+v, want one per clash (x, y)", fs)
	}
	for i, name := range []string{"x", "y"} {
		f := fs[i]
		if f.Rule != RuleNameClash || !f.Breaks() || f.Path != root || !strings.Contains(f.Msg, `skill "`+name+`" is defined twice`) || strings.Contains(f.Msg, "more names defined twice") {
			t.Errorf("finding %d = %+v, want the clash of %q alone", i, f, name)
		}
	}
	fr := reps[0].FileReport()
	if fr.OK || fr.File != root || len(fr.Errors) != 2 || len(fr.Warnings) != 0 {
		t.Errorf("FileReport = %+v", fr)
	}

	// A root that cannot be read is an error, not a report.
	if _, err := Check(context.Background(), filepath.Join(root, "missing")); err == nil {
		t.Error("Check of a missing root: no error")
	}
}

// TestFolderFileReport: a folder's report in validate's shape puts each
// finding under its rule's severity, with the file it is about for the
// text form, and prints as validate does.
func TestFolderFileReport(t *testing.T) {
	r := FolderReport{SkillMD: "s/a/SKILL.md", Skill: "a", Findings: []Finding{
		newFinding(RuleUnknownKey, "a", "s/a/SKILL.md", 4, "top-level key"),
		newFinding(RuleNameMismatch, "a", "s/a/SKILL.md", 2, "name differs"),
		newFinding(RuleUnknownKey, "a", "s/a/references/b.md", 0, "references/b.md: odd"),
	}}
	fr := r.FileReport()
	if fr.OK || len(fr.Errors) != 1 || len(fr.Warnings) != 2 || fr.Skill != "a" {
		t.Fatalf("FileReport = %+v", fr)
	}
	var b strings.Builder
	if err := fr.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `s/a/SKILL.md: invalid (1 errors, 2 warnings)
  s/a/SKILL.md:2: error [name-mismatch]: name differs
  s/a/SKILL.md:4: warning [unknown-key]: top-level key
  s/a/references/b.md:0: warning [unknown-key]: references/b.md: odd
`
	if b.String() != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
	}
	if ok := (&FolderReport{SkillMD: "s/b/SKILL.md"}).FileReport(); !ok.OK || ok.Errors == nil || ok.Warnings == nil {
		t.Errorf("a report without findings = %+v, want ok with [] lists", ok)
	}
}
