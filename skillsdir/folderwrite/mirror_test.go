package folderwrite

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/digest"
)

// The API a mirroring writer (agent3md sync) uses beside WriteFolders.

func syncFolder(name, body string) Folder {
	return Folder{Name: name, Skill: name, URI: "skill://" + name + "/SKILL.md", Files: []FolderFile{
		{Path: "SKILL.md", Data: []byte(skillMD(name, "", body))},
		{Path: "references/notes.md", Data: []byte("notes of " + name + "\n")},
	}}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func TestOriginOwnsFolders(t *testing.T) {
	dir := t.TempDir()
	a := &WriteOptions{Agent: "team", Source: "https://a/mcp", Origin: "https://a/mcp", Command: "sync"}
	if _, err := WriteFolders(dir, []Folder{syncFolder("deploy", "v1")}, a); err != nil {
		t.Fatal(err)
	}
	var m Marker
	readJSON(t, filepath.Join(dir, "deploy", markerFile), &m)
	if m.Origin != a.Origin || m.URI != "skill://deploy/SKILL.md" || len(m.Digests) != 2 ||
		m.Digests["SKILL.md"] != digest.Of([]byte(skillMD("deploy", "", "v1"))) {
		t.Fatalf("marker %+v: want the origin, the URI and each file's digest", m)
	}
	// Same origin: written again. Another origin, or an export of an agent
	// of the same name: refused, naming who owns it.
	if _, err := WriteFolders(dir, []Folder{syncFolder("deploy", "v2")}, a); err != nil {
		t.Fatal(err)
	}
	b := &WriteOptions{Agent: "team", Origin: "https://b/mcp", Command: "sync"}
	_, err := WriteFolders(dir, []Folder{syncFolder("deploy", "v3")}, b)
	if err == nil || !strings.Contains(err.Error(), "synced from https://a/mcp") {
		t.Fatalf("another origin: %v, want a refusal naming https://a/mcp", err)
	}
	export := &WriteOptions{Agent: "team"}
	if _, err := WriteFolders(dir, []Folder{syncFolder("deploy", "v3")}, export); err == nil || !strings.Contains(err.Error(), "synced from") {
		t.Fatalf("an export of agent %q over a synced folder: %v, want a refusal", "team", err)
	}
	// A sync over an exported folder is refused the other way round.
	if _, err := WriteFolders(dir, []Folder{syncFolder("build", "v1")}, export); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFolders(dir, []Folder{syncFolder("build", "v2")}, a); err == nil || !strings.Contains(err.Error(), `exported by agent "team"`) {
		t.Fatalf("a sync over an exported folder: %v, want a refusal", err)
	}
	var em Marker
	readJSON(t, filepath.Join(dir, "build", markerFile), &em)
	if em.Origin != "" || len(em.Digests) != 2 {
		t.Fatalf("an export's marker %+v gained sync fields or lacks its digests", em)
	}
}

func TestLookAndSurvey(t *testing.T) {
	dir := t.TempDir()
	o := &WriteOptions{Agent: "team", Origin: "src", Command: "sync"}
	if _, err := WriteFolders(dir, []Folder{syncFolder("ours", "x")}, o); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "plain", "SKILL.md"), skillMD("plain", "", "mine"))
	write(t, filepath.Join(dir, "broken", markerFile), "{not json")
	write(t, filepath.Join(dir, "file"), "x")
	write(t, filepath.Join(dir, ".hidden", "SKILL.md"), "x")
	if err := os.Symlink(filepath.Join(dir, "ours"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	all, err := Survey(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*Found{}
	var names []string
	for _, f := range all {
		got[f.Name] = f
		names = append(names, f.Name)
	}
	if want := []string{"broken", "file", "link", "ours", "plain"}; !slices.Equal(names, want) {
		t.Fatalf("Survey names %v, want %v (hidden entries left out)", names, want)
	}
	if f := got["ours"]; f.Kind != FoundDir || !f.Marked || !f.Owned(o) || f.Origin != "src" || len(f.Digests) != 2 {
		t.Errorf("ours: %+v", f)
	}
	if f := got["ours"]; f.Owned(&WriteOptions{Origin: "other"}) || f.Owned(&WriteOptions{Agent: "team"}) {
		t.Error("ours is owned by another origin, or by an export of the same agent")
	}
	if f := got["plain"]; f.Kind != FoundDir || f.Marked || f.Owned(o) {
		t.Errorf("plain: %+v", f)
	}
	if f := got["broken"]; !f.Marked || f.MarkerErr == nil || f.Owned(o) {
		t.Errorf("broken: %+v, want a marker error", f)
	}
	if got["link"].Kind != FoundLink || got["file"].Kind != FoundOther {
		t.Errorf("link %v, file %v", got["link"].Kind, got["file"].Kind)
	}
	if all, err := Survey(filepath.Join(dir, "nowhere")); err != nil || len(all) != 0 {
		t.Errorf("Survey of a missing dir: %v, %v", all, err)
	}
}

func TestHashFiles(t *testing.T) {
	dir := t.TempDir()
	f := syncFolder("deploy", "v1")
	if _, err := WriteFolders(dir, []Folder{f}, &WriteOptions{Origin: "src"}); err != nil {
		t.Fatal(err)
	}
	got, err := HashFiles(dir, "deploy", []string{"SKILL.md", "references/notes.md", "gone.md", "nodir/x.md"}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["SKILL.md"] != digest.Of(f.Files[0].Data) || got["references/notes.md"] != digest.Of(f.Files[1].Data) {
		t.Fatalf("HashFiles = %v", got)
	}
	if _, err := HashFiles(dir, "deploy", []string{"SKILL.md"}, 4); err == nil || !strings.Contains(err.Error(), "over 4 bytes") {
		t.Errorf("a file over the bound: %v", err)
	}
	if _, err := HashFiles(dir, "deploy", []string{"../x"}, 1<<20); err == nil {
		t.Error("a path leaving the folder was hashed")
	}
	// A link on the way is an error, never followed.
	outside := t.TempDir()
	write(t, filepath.Join(outside, "notes.md"), "secret")
	os.RemoveAll(filepath.Join(dir, "deploy", "references"))
	if err := os.Symlink(outside, filepath.Join(dir, "deploy", "references")); err != nil {
		t.Fatal(err)
	}
	if got, err := HashFiles(dir, "deploy", []string{"references/notes.md"}, 1<<20); err == nil {
		t.Errorf("hashed through a symbolic link: %v", got)
	}
	if got, err := HashFiles(dir, "absent", []string{"SKILL.md"}, 1<<20); err != nil || len(got) != 0 {
		t.Errorf("a missing folder: %v, %v", got, err)
	}
}

func TestRemoveFolders(t *testing.T) {
	dir := t.TempDir()
	o := &WriteOptions{Agent: "team", Origin: "src", Command: "sync"}
	if _, err := WriteFolders(dir, []Folder{syncFolder("a", "x"), syncFolder("b", "y")}, o); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "b", "mine.txt"), "added by hand")
	lic := syncFolder("c", "z")
	lic.Files = append(lic.Files, FolderFile{Path: "LICENSE.txt", Data: []byte("MIT\n")})
	if _, err := WriteFolders(dir, []Folder{lic}, o); err != nil {
		t.Fatal(err)
	}
	// b holds a file added by hand: it is kept whole unless forced.
	if _, err := RemoveFolders(dir, []string{"b"}, o); err == nil || !strings.Contains(err.Error(), "mine.txt added") {
		t.Fatalf("b, holding a file added by hand, removed: %v", err)
	}
	forced := *o
	forced.Force = true
	rep, err := RemoveFolders(dir, []string{"a", "b", "c", "absent"}, &forced)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a/SKILL.md", "a/references/notes.md", "b/SKILL.md", "b/references/notes.md", "c/SKILL.md", "c/LICENSE.txt", "c/references/notes.md"}; !slices.Equal(rep.Removed, want) {
		t.Errorf("removed %v, want %v (SKILL.md first)", rep.Removed, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !os.IsNotExist(err) {
		t.Errorf("folder a is still there: %v", err)
	}
	left, _ := os.ReadDir(filepath.Join(dir, "b"))
	if len(left) != 1 || left[0].Name() != "mine.txt" {
		t.Errorf("folder b holds %v, want only the file added by hand", left)
	}
	// Not ours, unmarked, a link: refused, and nothing of them goes.
	if _, err := WriteFolders(dir, []Folder{syncFolder("c", "z")}, &WriteOptions{Origin: "other"}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "d", "SKILL.md"), "mine")
	if err := os.Symlink(filepath.Join(dir, "c"), filepath.Join(dir, "e")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c", "d", "e"} {
		if _, err := RemoveFolders(dir, []string{name}, o); err == nil {
			t.Errorf("%s: removed", name)
		}
	}
	for _, p := range []string{"c/SKILL.md", "d/SKILL.md", "c/references/notes.md"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestSyncHelpers(t *testing.T) {
	if !ValidName("deploy-app") || ValidName("Deploy") || ValidName("a--b") || ValidName("../x") {
		t.Error("ValidName")
	}
	if !IsMarker(markerFile) || IsMarker("SKILL.md") {
		t.Error("IsMarker")
	}
}
