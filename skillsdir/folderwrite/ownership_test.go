package folderwrite

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The ownership rules (ownership.go), one test per rule; each of these
// broke before the rules were gathered there.

// withFile is f with one more file.
func withFile(f Folder, p, data string) Folder {
	f.Files = append(slices.Clone(f.Files), FolderFile{Path: p, Data: []byte(data)})
	return f
}

// mustRefusal is err's Refusal, failing the test when it is none.
func mustRefusal(t *testing.T, err error) *Refusal {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("got %v, want a *Refusal", err)
	}
	return r
}

// A file the marker does not list is the user's: a new version that wants
// its path is refused (naming it) unless forced, for sync and export alike.
func TestWriteRefusesUserFile(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    *WriteOptions
		path string
	}{
		{"sync: a note at the top", &WriteOptions{Agent: "team", Origin: "src", Command: "sync"}, "my-notes.md"},
		{"export: a reference made by hand", &WriteOptions{Agent: "team"}, "references/x.md"},
		{"a file where the new version wants a folder", &WriteOptions{Agent: "team", Origin: "src", Command: "sync"}, "scripts/run.sh"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := WriteFolders(dir, []Folder{syncFolder("deploy", "v1")}, tt.o); err != nil {
				t.Fatal(err)
			}
			mine := filepath.Join(dir, "deploy", filepath.FromSlash(tt.path))
			claimed := tt.path
			if tt.path == "scripts/run.sh" {
				mine, claimed = filepath.Join(dir, "deploy", "scripts"), "scripts"
			}
			write(t, mine, "mine\n")
			next := withFile(syncFolder("deploy", "v2"), tt.path, "theirs\n")
			_, err := WriteFolders(dir, []Folder{next}, tt.o)
			r := mustRefusal(t, err)
			if r.Folder != "deploy" || !slices.Equal(r.Files, []string{claimed}) || !strings.Contains(err.Error(), "--force") {
				t.Errorf("refusal %+v (%v), want deploy naming %s", r, err, claimed)
			}
			if b, _ := os.ReadFile(mine); string(b) != "mine\n" {
				t.Errorf("the user's file became %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "deploy", "SKILL.md")); !strings.Contains(string(b), "v1") {
				t.Errorf("the folder was written all the same: %q", b)
			}
			forced := *tt.o
			forced.Force = true
			_, err = WriteFolders(dir, []Folder{next}, &forced)
			if claimed != tt.path {
				// A file where a folder must go is never replaced.
				if err == nil || !strings.Contains(err.Error(), "not a directory") {
					t.Errorf("forced over a file where a folder goes: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("forced: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "deploy", filepath.FromSlash(tt.path))); string(b) != "theirs\n" {
				t.Errorf("forced: %s holds %q", tt.path, b)
			}
		})
	}
}

// A file sync wrote and the user edited is not replaced, nor removed as
// no longer served, without --force.
func TestWriteRefusesEditedFile(t *testing.T) {
	o := &WriteOptions{Agent: "team", Origin: "src", Command: "sync"}
	dir := t.TempDir()
	v1 := syncFolder("deploy", "v1")
	if _, err := WriteFolders(dir, []Folder{v1}, o); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "deploy", "references", "notes.md")
	write(t, notes, "edited\n")
	// v2 drops references/notes.md: writing it would remove the edit.
	v2 := Folder{Name: "deploy", Skill: "deploy", Files: v1.Files[:1]}
	v2.Files[0].Data = []byte(skillMD("deploy", "", "v2"))
	r := mustRefusal(t, func() error { _, err := WriteFolders(dir, []Folder{v2}, o); return err }())
	if !slices.Equal(r.Files, []string{"references/notes.md"}) || !strings.Contains(r.Reason, "changed here") {
		t.Errorf("refusal %+v", r)
	}
	if b, _ := os.ReadFile(notes); string(b) != "edited\n" {
		t.Errorf("the edit was lost: %q", b)
	}
}

// Removing a dropped skill compares its files first: an edited or added
// file keeps the folder whole (refused, the files named) unless forced,
// and even forced only the files the marker lists go.
func TestRemoveKeepsUserFiles(t *testing.T) {
	o := &WriteOptions{Agent: "team", Origin: "src", Command: "sync"}
	for _, tt := range []struct {
		name, path, data string
	}{
		{"an edited file", "references/notes.md", "edited\n"},
		{"an added file", "mine.txt", "added\n"},
		{"an added folder", "drafts/a.md", "draft\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := WriteFolders(dir, []Folder{syncFolder("deploy", "v1")}, o); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(dir, "deploy", filepath.FromSlash(tt.path)), tt.data)
			want := strings.Split(tt.path, "/")[0]
			if tt.path == "references/notes.md" {
				want = tt.path
			}
			if err := CheckRemove(dir, "deploy", o); mustRefusal(t, err).Files[0] != want {
				t.Errorf("CheckRemove: %v, want a refusal naming %s", err, want)
			}
			rep, err := RemoveFolders(dir, []string{"deploy"}, o)
			if r := mustRefusal(t, err); !slices.Equal(r.Files, []string{want}) || len(rep.Removed) != 0 {
				t.Errorf("removed %v, refusal %+v", rep.Removed, r)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "deploy", "SKILL.md")); !strings.Contains(string(b), "v1") {
				t.Errorf("SKILL.md went: %q", b)
			}
			forced := *o
			forced.Force = true
			if _, err := RemoveFolders(dir, []string{"deploy"}, &forced); err != nil {
				t.Fatal(err)
			}
			if exists(filepath.Join(dir, "deploy", "SKILL.md")) {
				t.Error("forced: SKILL.md is still there")
			}
			if tt.path != "references/notes.md" && !exists(filepath.Join(dir, "deploy", filepath.FromSlash(tt.path))) {
				t.Errorf("forced: %s, which no marker lists, was removed", tt.path)
			}
		})
	}
}

// An export whose agent lost a skill keeps that skill's folder when it
// holds a file the user added: the export is refused before anything is
// written, unless forced.
func TestPruneKeepsUserFiles(t *testing.T) {
	o := &WriteOptions{Agent: "team", Prune: true}
	dir := t.TempDir()
	if _, err := WriteFolders(dir, []Folder{syncFolder("a", "x"), syncFolder("b", "y")}, o); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "b", "mine.txt"), "mine\n")
	_, err := WriteFolders(dir, []Folder{syncFolder("a", "x2")}, o)
	if r := mustRefusal(t, err); r.Folder != "b" || !slices.Equal(r.Files, []string{"mine.txt"}) {
		t.Errorf("refusal %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a", "SKILL.md")); strings.Contains(string(b), "x2") {
		t.Errorf("a was written despite the refusal: %q", b)
	}
	forced := *o
	forced.Force = true
	if _, err := WriteFolders(dir, []Folder{syncFolder("a", "x2")}, &forced); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(dir, "b", "SKILL.md")) || !exists(filepath.Join(dir, "b", "mine.txt")) {
		t.Error("forced prune: want b's SKILL.md gone and mine.txt kept")
	}
}

// A skill folder holds only what CheckFilePath allows: no hidden element
// (a .git/config a server plants would run its commands), nothing over
// the file system's name limit, nothing through the marker's name.
func TestCheckFilePath(t *testing.T) {
	long := strings.Repeat("a", MaxElementBytes+1)
	for _, tt := range []struct {
		path, want string
	}{
		{"SKILL.md", ""},
		{"references/build.md", ""},
		{strings.Repeat("a", MaxElementBytes), ""},
		{"deploy/.git/config", "hidden"},
		{".env", "hidden"},
		{markerFile, "marker"},
		{markerFile + "/x", "marker"},
		{"scripts/" + long + "/x.sh", "255"},
		{long, "255"},
		{"../x", "inside"},
		{"a//b", "inside"},
		{"", "inside"},
	} {
		err := CheckFilePath(tt.path)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckFilePath(%q) = %v, want %q", tt.path, err, tt.want)
		}
		if tt.want == "" {
			continue
		}
		f := Folder{Name: "ok", Files: []FolderFile{{Path: "SKILL.md"}, {Path: tt.path}}}
		if _, err := WriteFolders(t.TempDir(), []Folder{f}, &WriteOptions{Agent: "a"}); err == nil {
			t.Errorf("WriteFolders wrote %q", tt.path)
		}
	}
}

// Recovery stays inside DIR: a leftover named like a hidden folder of the
// skill "..", with a marker naming this writer, is left alone and
// reported, and nothing reaches DIR's parent.
func TestRecoverStagedStaysInside(t *testing.T) {
	ours := &WriteOptions{Agent: "team", Origin: "https://a/mcp", Command: "sync"}
	parent := t.TempDir()
	dir := filepath.Join(parent, "skills")
	if _, err := WriteFolders(dir, []Folder{syncFolder("deploy", "v1")}, ours); err != nil {
		t.Fatal(err)
	}
	mark := markerOf(t, dir, "deploy")
	for _, name := range []string{"..", ".", "Deploy", "a--b"} {
		staged := leftover(t, dir, name, mark, map[string]string{"planted.sh": "evil\n", "SKILL.md": "x"}, time.Hour)
		rep, err := RecoverStaged(dir, ours)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if len(rep.Restored)+len(rep.Removed) != 0 || !slices.Equal(rep.Skipped, []string{staged}) {
			t.Errorf("%q: restored %v, removed %v, skipped %v", name, rep.Restored, rep.Removed, rep.Skipped)
		}
		for _, p := range []string{filepath.Join(parent, "planted.sh"), filepath.Join(dir, "planted.sh")} {
			if exists(p) {
				t.Errorf("%q: recovery put %s", name, p)
			}
		}
		if !exists(filepath.Join(staged, "planted.sh")) {
			t.Errorf("%q: the leftover was emptied", name)
		}
		os.RemoveAll(staged)
	}
}

// Export's markers record digests too, so a file export wrote and the
// user edited is neither replaced nor pruned without --force.
func TestExportRefusesEditedFile(t *testing.T) {
	o := &WriteOptions{Agent: "team", Prune: true}
	dir := t.TempDir()
	if _, err := WriteFolders(dir, []Folder{syncFolder("a", "x"), syncFolder("b", "y")}, o); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "a", "references", "notes.md"), "edited a\n")
	write(t, filepath.Join(dir, "b", "SKILL.md"), "edited b\n")
	_, err := WriteFolders(dir, []Folder{syncFolder("a", "x2")}, o)
	if err == nil || !strings.Contains(err.Error(), "a changed here since 'agent3md export' wrote it (references/notes.md)") ||
		!strings.Contains(err.Error(), "SKILL.md changed here") {
		t.Fatalf("export over two edits: %v", err)
	}
	for p, want := range map[string]string{"a/references/notes.md": "edited a\n", "b/SKILL.md": "edited b\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); string(b) != want {
			t.Errorf("%s became %q", p, b)
		}
	}
	forced := *o
	forced.Force = true
	if _, err := WriteFolders(dir, []Folder{syncFolder("a", "x2")}, &forced); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(dir, "b")) {
		t.Error("forced: b, holding only files export wrote, is still there")
	}
}
