package skillsync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each discovery shape, end to end: a first sync writes every skill, a
// second changes nothing (and, with digests, reads no file), one changed
// skill is fetched alone, a dropped one is removed once the server says
// it is gone.
func TestSyncShapes(t *testing.T) {
	for _, tt := range []struct {
		mode, via string
		modern    bool
		verified  bool
	}{
		{"ext", viaSkillsExtension, true, true},
		{"ext", viaSkillsExtension, false, true},
		{"manifest", viaManifests, true, true},
		{"alias", viaSkillResources, false, false},
	} {
		t.Run(tt.mode+map[bool]string{true: "-modern", false: "-legacy"}[tt.modern], func(t *testing.T) {
			lib := library(7)
			if tt.mode == "alias" {
				for _, files := range lib {
					for p := range files {
						if p != "SKILL.md" {
							delete(files, p)
						}
					}
				}
			}
			f := newFake(tt.mode, clone(lib))
			f.cfg.Modern = tt.modern
			url := f.serveHTTP(t)
			dir := filepath.Join(t.TempDir(), "skills")

			sum := mustSync(t, url, dir, nil)
			if sum.Via != tt.via || len(sum.Added) != 7 || !sum.OK() {
				t.Fatalf("first sync: via %s, added %v, refused %v", sum.Via, sum.Added, sum.Refused)
			}
			sameFiles(t, dir, flat(lib))

			reads := f.count("resources/read")
			sum = mustSync(t, url, dir, nil)
			if len(sum.Unchanged) != 7 || sum.Changed() {
				t.Fatalf("second sync: %+v", sum)
			}
			if tt.verified && (sum.Files != 0 || tt.mode == "ext" && f.count("resources/read") != reads) {
				t.Errorf("second sync read %d files (%d resources): digests should have spared them", sum.Files, f.count("resources/read")-reads)
			}

			f.set(func(c *fakeConfig) { c.Skills["skill-03"]["SKILL.md"] = skillText("skill-03", "v2") })
			lib["skill-03"]["SKILL.md"] = skillText("skill-03", "v2")
			reads = f.count("resources/read")
			sum = mustSync(t, url, dir, nil)
			if join(sum.Updated) != "skill-03" || len(sum.Unchanged) != 6 {
				t.Fatalf("after one change: updated %v, unchanged %d", sum.Updated, len(sum.Unchanged))
			}
			if tt.verified && sum.Files != int64(len(lib["skill-03"])) {
				t.Errorf("after one change %d files were read, want the changed skill's %d", sum.Files, len(lib["skill-03"]))
			}
			if n := f.count("resources/read") - reads; tt.mode == "ext" && n != len(lib["skill-03"]) {
				t.Errorf("after one change %d resources were read, want the changed skill's %d files", n, len(lib["skill-03"]))
			}
			sameFiles(t, dir, flat(lib))

			f.set(func(c *fakeConfig) { delete(c.Skills, "skill-05") })
			delete(lib, "skill-05")
			sum = mustSync(t, url, dir, nil)
			if join(sum.Removed) != "skill-05" {
				t.Fatalf("after a drop: removed %v, kept %v", sum.Removed, sum.Kept)
			}
			sameFiles(t, dir, flat(lib))
			if _, err := os.Stat(filepath.Join(dir, "skill-05")); !os.IsNotExist(err) {
				t.Errorf("skill-05's folder is still there: %v", err)
			}
		})
	}
}

// A skill left out of a listing but still served (a server between two
// versions of a folder) is kept, not removed.
func TestSyncKeepsUnlistedButServed(t *testing.T) {
	f := newFake("ext", library(3))
	url := f.serveHTTP(t)
	dir := t.TempDir()
	mustSync(t, url, dir, nil)
	f.set(func(c *fakeConfig) { c.Hidden = map[string]bool{"skill-01": true} })
	sum := mustSync(t, url, dir, nil)
	if len(sum.Removed) != 0 || len(sum.Kept) != 1 || sum.Kept[0].Skill != "skill-01" || !strings.Contains(sum.Kept[0].Reason, "still served") {
		t.Fatalf("removed %v, kept %v", sum.Removed, sum.Kept)
	}
	if _, err := os.Stat(filepath.Join(dir, "skill-01", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
}

// A server that lists one digest and serves other bytes: the skill is
// refused naming the file, its old version stays, the others are synced.
func TestSyncLyingDigest(t *testing.T) {
	for _, mode := range []string{"ext", "manifest"} {
		t.Run(mode, func(t *testing.T) {
			lib := library(3)
			f := newFake(mode, clone(lib))
			url := f.serveHTTP(t)
			dir := t.TempDir()
			mustSync(t, url, dir, nil)
			// New bytes for two skills; the server keeps listing skill-01's
			// old digest for its reference.
			old := lib["skill-01"]["references/ref.md"]
			f.set(func(c *fakeConfig) {
				c.Skills["skill-01"]["references/ref.md"] = "tampered\n"
				c.Skills["skill-01"]["SKILL.md"] = skillText("skill-01", "v2")
				c.Skills["skill-02"]["SKILL.md"] = skillText("skill-02", "v2")
				c.Lie = map[string]string{fileURI("skill-01", "references/ref.md"): sha("different\n")}
			})
			sum, err := syncURL(t, url, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sum.OK() || refusedNames(sum) != "skill-01" || !strings.Contains(sum.Refused[0].Reason, "references/ref.md") ||
				!strings.Contains(sum.Refused[0].Reason, "digest") {
				t.Fatalf("refused %v", sum.Refused)
			}
			if join(sum.Updated) != "skill-02" {
				t.Errorf("updated %v, want skill-02", sum.Updated)
			}
			got := readDir(t, dir)
			if got["skill-01/references/ref.md"] != old || got["skill-01/SKILL.md"] != lib["skill-01"]["SKILL.md"] {
				t.Errorf("skill-01 is not its old version whole: %q, %q", got["skill-01/references/ref.md"], got["skill-01/SKILL.md"])
			}
			if got["skill-02/SKILL.md"] != skillText("skill-02", "v2") {
				t.Errorf("skill-02 was not updated")
			}
		})
	}
}

// A listed size the bytes do not have is refused like a digest: more
// bytes than listed are not even read whole; fewer (with a digest of
// those bytes) are caught by the size.
func TestSyncLyingSize(t *testing.T) {
	for _, mode := range []string{"ext", "manifest"} {
		t.Run(mode, func(t *testing.T) {
			f := newFake(mode, library(3))
			ref := "references/ref.md"
			f.cfg.SizeLie = map[string]int{fileURI("skill-00", ref): 3, fileURI("skill-01", ref): 1000}
			sum, err := syncURL(t, f.serveHTTP(t), t.TempDir(), nil)
			if err != nil || refusedNames(sum) != "skill-00,skill-01" ||
				!strings.Contains(sum.Refused[0].Reason, ref+": the server listed 3 bytes and served more") ||
				!strings.Contains(sum.Refused[1].Reason, ref+": the server listed 1000 bytes and served 23") {
				t.Fatalf("%v, refused %v", err, sum.Refused)
			}
		})
	}
}

// A listing whose cursor the server stops taking (it changed between two
// pages) starts over, a few times at most.
func TestSyncRelists(t *testing.T) {
	for _, mode := range []string{"ext", "manifest"} {
		f := newFake(mode, library(7))
		f.cfg.Expire = 2
		sum, err := syncURL(t, f.serveHTTP(t), t.TempDir(), nil)
		if err != nil || len(sum.Added) != 7 {
			t.Fatalf("%s: %v, %+v", mode, err, sum)
		}
		f.set(func(c *fakeConfig) { c.Expire = 3 })
		if _, err := syncURL(t, f.url(t), t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "gave up after 3 tries: "+map[string]string{"ext": "skills", "manifest": "resources"}[mode]+"/list: the server's listing changed") {
			t.Fatalf("%s: %v, want the listing given up after 3 tries", mode, err)
		}
	}
}
