package skillsync

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/testkit"
)

// writeFile writes a file and its directories (testkit.WriteFile).
var writeFile = testkit.WriteFile

// Folders sync did not write from this source are never touched without
// --force, and never through a link even with it.
func TestSyncForeignFolders(t *testing.T) {
	f := newFake("ext", library(4))
	url := f.serveHTTP(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skill-00", "SKILL.md"), "my own skill\n")
	other := t.TempDir()
	writeFile(t, filepath.Join(other, "SKILL.md"), "elsewhere\n")
	if err := os.Symlink(other, filepath.Join(dir, "skill-01")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "skill-02"), "a file\n")
	// skill-03 was synced from another source.
	g := newFake("ext", library(4))
	if sum := mustSync(t, g.serveHTTP(t), dir, nil); join(sum.Added) != "skill-03" {
		t.Fatalf("setup: %+v", sum)
	}

	sum := mustSync(t, url, dir, nil)
	want := map[string]string{
		"skill-00": "not written by agent3md sync",
		"skill-01": "symbolic link",
		"skill-02": "not a folder",
		"skill-03": "was synced from " + g.url(t),
	}
	if len(sum.Refused) != 4 {
		t.Fatalf("refused %+v", sum.Refused)
	}
	for _, r := range sum.Refused {
		if !strings.Contains(r.Reason, want[r.Skill]) {
			t.Errorf("%s: %q, want %q", r.Skill, r.Reason, want[r.Skill])
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "skill-00", "SKILL.md")); string(b) != "my own skill\n" {
		t.Errorf("skill-00 was touched: %q", b)
	}

	// --force replaces the folders it may (the hand-made file it did not
	// write stays beside), never the link or the file.
	writeFile(t, filepath.Join(dir, "skill-00", "notes.txt"), "keep me\n")
	sum = mustSync(t, url, dir, &Options{Force: true})
	if refusedNames(sum) != "skill-01,skill-02" || join(sum.Updated) != "skill-00,skill-03" {
		t.Fatalf("forced: updated %v, refused %+v", sum.Updated, sum.Refused)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "SKILL.md")); string(b) != "elsewhere\n" {
		t.Errorf("written through the link: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "skill-00", "notes.txt")); string(b) != "keep me\n" {
		t.Errorf("a file sync did not write was lost: %q", b)
	}
	// Now the forced folders are this source's: plain syncs keep them.
	if sum := mustSync(t, url, dir, nil); len(sum.Unchanged) != 2 || refusedNames(sum) != "skill-01,skill-02" {
		t.Fatalf("after force: %+v", sum)
	}
	// A dropped skill of the other source is not this one's to remove.
	f.set(func(c *fakeConfig) { delete(c.Skills, "skill-03"); delete(c.Skills, "skill-00") })
	g.set(func(c *fakeConfig) { delete(c.Skills, "skill-03") })
	// skill-00 holds notes.txt, added by hand: it is kept whole, refused
	// with the file named, until --force removes the files sync wrote.
	sum = mustSync(t, url, dir, nil)
	if join(sum.Removed) != "skill-03" || refusedNames(sum) != "skill-00,skill-01,skill-02" {
		t.Fatalf("removed %v, refused %+v", sum.Removed, sum.Refused)
	}
	if r := sum.Refused[0].Reason; !strings.Contains(r, "notes.txt added") || !strings.Contains(r, "--force") {
		t.Errorf("the refusal to remove skill-00: %q", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "skill-00", "SKILL.md")); err != nil {
		t.Errorf("skill-00 lost its SKILL.md: %v", err)
	}
	sum = mustSync(t, url, dir, &Options{Force: true})
	if join(sum.Removed) != "skill-00" {
		t.Fatalf("forced: removed %v", sum.Removed)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "skill-00", "notes.txt")); string(b) != "keep me\n" {
		t.Errorf("removing a skill took a file sync did not write: %q", b)
	}
}

func (f *fake) url(t *testing.T) string {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastURL
}

// A file changed in DIR since sync wrote it is not replaced without
// --force; one deleted there is restored.
func TestSyncLocalEdits(t *testing.T) {
	lib := library(2)
	f := newFake("ext", clone(lib))
	url := f.serveHTTP(t)
	dir := t.TempDir()
	mustSync(t, url, dir, nil)
	ref := filepath.Join(dir, "skill-00", "references", "ref.md")
	writeFile(t, ref, "my notes\n")
	os.Remove(filepath.Join(dir, "skill-01", "references", "ref.md"))
	sum := mustSync(t, url, dir, nil)
	if refusedNames(sum) != "skill-00" || !strings.Contains(sum.Refused[0].Reason, "changed here") || join(sum.Updated) != "skill-01" {
		t.Fatalf("refused %+v, updated %v", sum.Refused, sum.Updated)
	}
	if b, _ := os.ReadFile(ref); string(b) != "my notes\n" {
		t.Errorf("the local edit was replaced: %q", b)
	}
	sum = mustSync(t, url, dir, &Options{Force: true})
	if join(sum.Updated) != "skill-00" || !sum.OK() {
		t.Fatalf("forced: %+v", sum)
	}
	sameFiles(t, dir, flat(lib))
}

// --dry-run reads what it must to decide and writes nothing.
func TestSyncDryRun(t *testing.T) {
	f := newFake("ext", library(3))
	url := f.serveHTTP(t)
	dir := filepath.Join(t.TempDir(), "skills")
	sum := mustSync(t, url, dir, &Options{DryRun: true})
	if len(sum.Added) != 3 || !sum.DryRun || sum.Files != 0 {
		t.Fatalf("dry run: %+v", sum)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a dry run made DIR: %v", err)
	}
	mustSync(t, url, dir, nil)
	f.set(func(c *fakeConfig) {
		delete(c.Skills, "skill-00")
		c.Skills["skill-01"]["SKILL.md"] = skillText("skill-01", "v2")
	})
	before := readDir(t, dir)
	sum = mustSync(t, url, dir, &Options{DryRun: true})
	if join(sum.Removed) != "skill-00" || join(sum.Updated) != "skill-01" || join(sum.Unchanged) != "skill-02" {
		t.Fatalf("dry run: %+v", sum)
	}
	sameFiles(t, dir, before)

	// Without digests the changed skill is read to be compared, and still
	// not written.
	lib := library(2)
	for _, files := range lib {
		for p := range files {
			if p != "SKILL.md" {
				delete(files, p)
			}
		}
	}
	g := newFake("alias", clone(lib))
	gurl := g.serveHTTP(t)
	dir = t.TempDir()
	mustSync(t, gurl, dir, nil)
	g.set(func(c *fakeConfig) { c.Skills["skill-01"]["SKILL.md"] = skillText("skill-01", "v2") })
	sum = mustSync(t, gurl, dir, &Options{DryRun: true})
	if join(sum.Updated) != "skill-01" || join(sum.Unchanged) != "skill-00" || sum.Files != 2 {
		t.Fatalf("dry run without digests: %+v", sum)
	}
	sameFiles(t, dir, flat(lib))
}

// Bounds: a file, a skill or a file count past its limit refuses the
// skill; more skills or bytes than allowed stop the sync.
func TestSyncLimits(t *testing.T) {
	lib := library(3)
	lib["skill-01"]["big.md"] = strings.Repeat("x", 5000)
	for _, tt := range []struct {
		name    string
		lim     Limits
		refused string
		err     string
	}{
		{"file", Limits{MaxFileBytes: 4096}, "skill-01", ""},
		{"skill", Limits{MaxSkillBytes: 4096}, "skill-01", ""},
		{"files", Limits{MaxSkillFiles: 4}, "skill-01", ""},
		{"skills", Limits{MaxSkills: 2}, "", "more than 2 skills"},
		{"total", Limits{MaxTotalBytes: 4096}, "", "--max-total-bytes"},
		{"defaults", Limits{}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake("ext", clone(lib))
			lim := tt.lim
			sum, err := syncURL(t, f.serveHTTP(t), t.TempDir(), &Options{Limits: &lim})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || refusedNames(sum) != tt.refused {
				t.Fatalf("%v; refused %+v, want %q", err, sum.Refused, tt.refused)
			}
		})
	}
}

// A skill whose listed files do not say it (dynamic) is listed folder by
// folder; a nested skill travels in its parent's folder; two skills of
// one name are both refused; a SKILL.md whose frontmatter is not the
// listed one is refused.
func TestSyncListingShapes(t *testing.T) {
	t.Run("dynamic", func(t *testing.T) {
		lib := library(2)
		f := newFake("ext", clone(lib))
		f.cfg.Dynamic = true
		dir := t.TempDir()
		if sum := mustSync(t, f.serveHTTP(t), dir, nil); len(sum.Added) != 2 || !sum.OK() {
			t.Fatalf("%+v", sum)
		}
		sameFiles(t, dir, flat(lib))
	})
	t.Run("nested", func(t *testing.T) {
		lib := library(2)
		lib["skill-00"]["skill-01/SKILL.md"] = lib["skill-01"]["SKILL.md"]
		f := newFake("ext", clone(lib))
		dir := t.TempDir()
		sum := mustSync(t, f.serveHTTP(t), dir, nil)
		if join(sum.Added) != "skill-00" {
			t.Fatalf("added %v, want the parent alone", sum.Added)
		}
		want := flat(map[string]map[string]string{"skill-00": lib["skill-00"]})
		sameFiles(t, dir, want)
		// Its parent's folder holds it, so it is not a dropped skill.
		if sum := mustSync(t, f.url(t), dir, nil); sum.Changed() {
			t.Fatalf("%+v", sum)
		}
	})
	t.Run("same name", func(t *testing.T) {
		f := newFake("ext", library(1))
		b, _ := json.Marshal(map[string]any{"uri": "skill://team/skill-00/SKILL.md", "frontmatter": map[string]any{"name": "skill-00"},
			"resources": []any{map[string]any{"uri": "skill://team/skill-00/SKILL.md", "digest": sha("x"), "size": 1}}})
		f.cfg.Entries = []json.RawMessage{b}
		sum := mustSync(t, f.serveHTTP(t), t.TempDir(), nil)
		if len(sum.Refused) != 2 || !strings.Contains(sum.Refused[0].Reason, "2 listed skills are named skill-00") {
			t.Fatalf("%+v", sum.Refused)
		}
	})
	t.Run("frontmatter", func(t *testing.T) {
		f := newFake("ext", library(2))
		f.cfg.Skills["skill-01"]["SKILL.md"] = "---\nname: skill-01\ndescription: Something else.\n---\n"
		f.cfg.Skills["skill-00"]["SKILL.md"] = "no frontmatter\n"
		sum := mustSync(t, f.serveHTTP(t), t.TempDir(), nil)
		if refusedNames(sum) != "skill-00,skill-01" || !strings.Contains(sum.Refused[1].Reason, "differs from the one skills/list gives") {
			t.Fatalf("%+v", sum.Refused)
		}
	})
}

// An interrupted sync (the server dies mid-transfer, or the sync is
// cancelled) leaves every skill folder as it was or fully updated.
func TestSyncInterrupted(t *testing.T) {
	for _, how := range []string{"server dies", "cancelled"} {
		t.Run(how, func(t *testing.T) {
			f, url, dir, lib, v2 := syncedTwice(t)
			ctx, cancel := context.WithCancel(ctx(t))
			defer cancel()
			f.set(func(c *fakeConfig) {
				c.Skills = clone(v2)
				if how == "server dies" {
					c.FailAfter = f.reads + 17
				} else {
					c.BlockAfter = f.reads + 17
				}
			})
			if how == "cancelled" {
				f.block = make(chan struct{})
				go func() {
					// Cancel once the server has stalled: every worker waits.
					for f.stalled() < 1 {
						select {
						case <-ctx.Done():
							return
						case <-f.readSignal():
						}
					}
					cancel()
					f.unblock()
				}()
			}
			_, err := Sync(ctx, &Source{URL: url}, &Options{Dir: dir, Workers: 4})
			if err == nil {
				t.Fatal("the sync succeeded")
			}
			if how == "cancelled" && !errors.Is(err, context.Canceled) {
				t.Errorf("err %v, want cancelled", err)
			}
			neverMixed(t, dir, lib, v2)
			for _, e := range mustReadDir(t, dir) {
				if strings.HasPrefix(e, ".") {
					t.Errorf("left behind: %s", e)
				}
			}
			// The next sync finishes the job.
			f.set(func(c *fakeConfig) { c.FailAfter, c.BlockAfter = 0, 0 })
			mustSync(t, url, dir, nil)
			sameFiles(t, dir, flat(v2))
		})
	}
}

func mustReadDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// A sync killed between carrying a folder's local files into its hidden
// next version and swapping it in leaves them there; the next sync puts
// them back (writer.RecoverStaged) and says so.
func TestSyncRecoversLeftover(t *testing.T) {
	f := newFake("ext", library(1))
	url := f.serveHTTP(t)
	dir := t.TempDir()
	mustSync(t, url, dir, nil)
	marker, err := os.ReadFile(filepath.Join(dir, "skill-00", ".agent3md-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	staged := filepath.Join(dir, ".skill-00.agent3md-00112233445566ff")
	writeFile(t, filepath.Join(staged, ".agent3md-export.json"), string(marker))
	writeFile(t, filepath.Join(staged, "mine.txt"), "my notes\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(staged, old, old); err != nil {
		t.Fatal(err)
	}
	sum := mustSync(t, url, dir, nil)
	if join(sum.Restored) != "skill-00/mine.txt" || len(sum.LeftStaged) != 0 {
		t.Fatalf("restored %v, left %v", sum.Restored, sum.LeftStaged)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "skill-00", "mine.txt")); string(b) != "my notes\n" {
		t.Errorf("mine.txt not back in its folder: %q", b)
	}
	if _, err := os.Lstat(staged); err == nil {
		t.Error("the hidden folder is still there")
	}
	var text strings.Builder
	sum.WriteText(&text)
	if !strings.Contains(text.String(), "restored  skill-00/mine.txt") {
		t.Errorf("the summary does not say what it restored:\n%s", text.String())
	}
}
