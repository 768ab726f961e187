package skillsync

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// library is n small skills, each with a SKILL.md and a reference, one
// of them with an escaped name and one binary file.
func library(n int) map[string]map[string]string {
	out := map[string]map[string]string{}
	for i := range n {
		name := fmt.Sprintf("skill-%02d", i)
		out[name] = map[string]string{
			"SKILL.md":          skillText(name, "v1"),
			"references/ref.md": "Reference of " + name + ".\n",
			"scripts/run me.sh": "echo " + name + "\n",
			"assets/logo.bin":   "\x89PNG\r\n\x1a\n\xff\xfe" + name,
		}
	}
	return out
}

func skillText(name, version string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nDo " + name + ", " + version + ".\n"
}

// clone copies a library so the fake and the test may change theirs.
func clone(lib map[string]map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for k, v := range lib {
		out[k] = maps.Clone(v)
	}
	return out
}

// readDir is every file below dir but the markers, by slash path.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if filepath.Base(rel) == ".agent3md-export.json" {
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// flat is a library as readDir gives it.
func flat(lib map[string]map[string]string) map[string]string {
	out := map[string]string{}
	for name, files := range lib {
		for p, data := range files {
			out[name+"/"+p] = data
		}
	}
	return out
}

// sameFiles fails the test when DIR does not hold exactly want.
func sameFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	got := readDir(t, dir)
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: missing", p)
		} else if g != w {
			t.Errorf("%s: %q, want %q", p, g, w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: not expected", p)
		}
	}
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// syncURL runs one sync from url into dir.
func syncURL(t *testing.T, url, dir string, opts *Options) (*Summary, error) {
	t.Helper()
	o := Options{Dir: dir}
	if opts != nil {
		o = *opts
		o.Dir = dir
	}
	return Sync(ctx(t), &Source{URL: url}, &o)
}

func mustSync(t *testing.T, url, dir string, opts *Options) *Summary {
	t.Helper()
	sum, err := syncURL(t, url, dir, opts)
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return sum
}

func join(l []string) string { return strings.Join(l, ",") }

func refusedNames(s *Summary) string {
	var out []string
	for _, r := range s.Refused {
		out = append(out, r.Skill)
	}
	return join(out)
}

// neverMixed fails the test when a skill folder of dir is neither its old
// version whole nor its new one whole, or when the interruption fell
// before the first skill or after the last; it says how many are new.
func neverMixed(t *testing.T, dir string, old, nw map[string]map[string]string) {
	t.Helper()
	got := readDir(t, dir)
	updated := 0
	for name := range old {
		isOld, isNew := true, true
		for p := range old[name] {
			isOld = isOld && got[name+"/"+p] == old[name][p]
			isNew = isNew && got[name+"/"+p] == nw[name][p]
		}
		if !isOld && !isNew {
			t.Errorf("%s is a mix of both versions", name)
		}
		if isNew {
			updated++
		}
	}
	if updated == 0 || updated == len(old) {
		t.Errorf("%d of %d skills updated: the interruption did not fall mid-sync", updated, len(old))
	}
}

// syncedTwice serves 12 skills, syncs them into dir, and gives a second
// version of each (SKILL.md and a reference changed) for the test to
// serve and interrupt.
func syncedTwice(t *testing.T) (f *fake, url, dir string, lib, v2 map[string]map[string]string) {
	t.Helper()
	lib = library(12)
	f = newFake("ext", clone(lib))
	url = f.serveHTTP(t)
	dir = t.TempDir()
	mustSync(t, url, dir, nil)
	v2 = clone(lib)
	for name, files := range v2 {
		files["SKILL.md"] = skillText(name, "v2")
		files["references/ref.md"] = "Second reference of " + name + ".\n"
	}
	return f, url, dir, lib, v2
}
