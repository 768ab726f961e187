package skillsync

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The writer's ownership rules as sync meets them (skillsdir's
// ownership.go, docs/sync.md §3): each of these broke before.

// A file the user added to a synced skill is theirs: when the server
// later lists a file of that name, the skill is refused naming it (in a
// dry run too), the others sync, and only --force replaces it.
func TestSyncUserFileAtListedPath(t *testing.T) {
	lib := library(2)
	f := newFake("ext", clone(lib))
	url := f.serveHTTP(t)
	dir := t.TempDir()
	mustSync(t, url, dir, nil)
	mine := filepath.Join(dir, "skill-00", "my-notes.md")
	writeFile(t, mine, "my notes\n")
	f.set(func(c *fakeConfig) {
		c.Skills["skill-00"]["my-notes.md"] = "the server's notes\n"
		c.Skills["skill-01"]["SKILL.md"] = skillText("skill-01", "v2")
	})
	for _, dry := range []bool{true, false} {
		sum := mustSync(t, url, dir, &Options{DryRun: dry})
		if refusedNames(sum) != "skill-00" || join(sum.Updated) != "skill-01" {
			t.Fatalf("dry run %v: refused %+v, updated %v", dry, sum.Refused, sum.Updated)
		}
		if r := sum.Refused[0].Reason; !strings.Contains(r, "my-notes.md") || !strings.Contains(r, "--force") {
			t.Errorf("dry run %v: the refusal does not name the file and --force: %q", dry, r)
		}
		if b, _ := os.ReadFile(mine); string(b) != "my notes\n" {
			t.Fatalf("dry run %v: the user's file became %q", dry, b)
		}
	}
	sum := mustSync(t, url, dir, &Options{Force: true})
	if join(sum.Updated) != "skill-00" || !sum.OK() {
		t.Fatalf("forced: %+v", sum)
	}
	if b, _ := os.ReadFile(mine); string(b) != "the server's notes\n" {
		t.Errorf("forced: %q", b)
	}
}

// A skill the server drops is removed only when its folder holds nothing
// but what sync wrote, as written: an edit keeps it, refused with the
// file named (in a dry run too), until --force.
func TestSyncRemovalKeepsEdits(t *testing.T) {
	f := newFake("ext", library(2))
	url := f.serveHTTP(t)
	dir := t.TempDir()
	mustSync(t, url, dir, nil)
	ref := filepath.Join(dir, "skill-01", "references", "ref.md")
	writeFile(t, ref, "my edit\n")
	f.set(func(c *fakeConfig) { delete(c.Skills, "skill-01") })
	for _, dry := range []bool{true, false} {
		sum := mustSync(t, url, dir, &Options{DryRun: dry})
		if refusedNames(sum) != "skill-01" || len(sum.Removed) != 0 {
			t.Fatalf("dry run %v: removed %v, refused %+v", dry, sum.Removed, sum.Refused)
		}
		if r := sum.Refused[0].Reason; !strings.Contains(r, "references/ref.md changed here") {
			t.Errorf("dry run %v: %q does not name the edited file", dry, r)
		}
		if b, _ := os.ReadFile(ref); string(b) != "my edit\n" {
			t.Fatalf("dry run %v: the edit is gone: %q", dry, b)
		}
	}
	sum := mustSync(t, url, dir, &Options{Force: true})
	if join(sum.Removed) != "skill-01" || !sum.OK() {
		t.Fatalf("forced: %+v", sum)
	}
	if _, err := os.Lstat(filepath.Join(dir, "skill-01")); !os.IsNotExist(err) {
		t.Errorf("forced: skill-01 is still there (%v)", err)
	}
}

// A path no skill folder may hold refuses its skill and no other: a
// hidden element (a .git/config would run the server's commands on the
// next git status), an element over 255 bytes, a path through the
// marker's name. The pass goes on, the summary says why, and nothing of
// those skills is written.
func TestSyncRefusesPathsAFolderMayNotHold(t *testing.T) {
	lib := library(1)
	bad := map[string]string{
		"hidden-git":  "deploy/.git/config",
		"long-name":   "scripts/" + strings.Repeat("x", 300) + ".sh",
		"marker-path": ".agent3md-export.json/x",
	}
	for name, p := range bad {
		lib[name] = map[string]string{"SKILL.md": skillText(name, "v1"), p: "[core]\n\tfsmonitor = touch pwned\n"}
	}
	f := newFake("ext", lib)
	dir := t.TempDir()
	sum, err := syncURL(t, f.serveHTTP(t), dir, nil)
	if err != nil {
		t.Fatalf("one bad path stopped the whole sync: %v", err)
	}
	if refusedNames(sum) != "hidden-git,long-name,marker-path" || join(sum.Added) != "skill-00" || sum.OK() {
		t.Fatalf("added %v, refused %+v", sum.Added, sum.Refused)
	}
	want := map[string]string{"hidden-git": "hidden element", "long-name": "255-byte", "marker-path": "marker"}
	for _, r := range sum.Refused {
		if !strings.Contains(r.Reason, want[r.Skill]) {
			t.Errorf("%s: %q, want %q", r.Skill, r.Reason, want[r.Skill])
		}
	}
	for name := range bad {
		if _, err := os.Lstat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s was written (%v)", name, err)
		}
	}
}

// Text a server sends reaches the summary through the terminal-safe path:
// an ESC in a URI cannot retitle the terminal, and a line break cannot
// fake an "added" line, whatever stdout is.
func TestSyncSummaryEscapesServerText(t *testing.T) {
	f := newFake("ext", library(1))
	entry, _ := json.Marshal(map[string]any{
		"uri":         "skill://\x1b]0;pwned\x07\n  added     evil/SKILL.md",
		"frontmatter": map[string]any{"name": "evil"},
		"resources":   []any{},
	})
	f.set(func(c *fakeConfig) { c.Entries = []json.RawMessage{entry} })
	sum := mustSync(t, f.serveHTTP(t), t.TempDir(), nil)
	if len(sum.Refused) != 1 {
		t.Fatalf("refused %+v", sum.Refused)
	}
	var b strings.Builder
	if err := sum.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\n  added     evil") {
		t.Errorf("the summary carries the server's control characters raw:\n%q", out)
	}
	if !strings.Contains(out, `\x1b]0;pwned\x07\x0a`) {
		t.Errorf("the summary does not show them escaped:\n%s", out)
	}
}

// A hidden folder named like a leftover of the skill "..", holding a
// marker of this source, is never recovered: its files would land in
// DIR's parent (~/.claude for ~/.claude/skills). The summary lists it.
func TestSyncRecoveryStaysInsideDir(t *testing.T) {
	f := newFake("ext", library(1))
	url := f.serveHTTP(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "skills")
	mustSync(t, url, dir, nil)
	marker, err := os.ReadFile(filepath.Join(dir, "skill-00", ".agent3md-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	staged := filepath.Join(dir, "....agent3md-00112233445566ff")
	writeFile(t, filepath.Join(staged, ".agent3md-export.json"), string(marker))
	writeFile(t, filepath.Join(staged, "settings.json"), `{"hooks": "planted"}`)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(staged, old, old); err != nil {
		t.Fatal(err)
	}
	sum := mustSync(t, url, dir, nil)
	if _, err := os.Lstat(filepath.Join(parent, "settings.json")); err == nil {
		t.Fatal("recovery moved a planted file into DIR's parent")
	}
	if len(sum.Restored) != 0 || join(sum.SkippedStaged) != staged {
		t.Fatalf("restored %v, skipped %v", sum.Restored, sum.SkippedStaged)
	}
	var b strings.Builder
	sum.WriteText(&b)
	if !strings.Contains(b.String(), "skipped   "+staged) {
		t.Errorf("the summary does not list the skipped folder:\n%s", b.String())
	}
}

// A file the user adds after the plan and before the write is caught by
// the writer's own check: the skill is refused, the pass goes on.
func TestSyncUserFileAddedDuringPass(t *testing.T) {
	f := newFake("ext", library(2))
	url := f.serveHTTP(t)
	dir := t.TempDir()
	mustSync(t, url, dir, nil)
	f.set(func(c *fakeConfig) {
		c.Skills["skill-00"]["my-notes.md"] = "the server's notes\n"
		c.BlockAfter = f.reads // every read from now on waits
	})
	f.block = make(chan struct{})
	mine := filepath.Join(dir, "skill-00", "my-notes.md")
	go func() {
		for f.stalled() < 1 {
			<-f.readSignal()
		}
		// Planned already, so the plan did not see it.
		if err := os.WriteFile(mine, []byte("my notes\n"), 0o644); err != nil {
			t.Error(err)
		}
		f.unblock()
	}()
	sum := mustSync(t, url, dir, nil)
	if refusedNames(sum) != "skill-00" || !strings.Contains(sum.Refused[0].Reason, "my-notes.md") {
		t.Fatalf("refused %+v, updated %v", sum.Refused, sum.Updated)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my notes\n" {
		t.Errorf("the user's file became %q", b)
	}
}
