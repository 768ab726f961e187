package folderwrite

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/digest"
)

// TestWriteFoldersRefusesBadFolders: a folder name or file path that would
// leave the skills directory is refused before anything is written, and
// so is a marker listing a path outside its folder.
func TestWriteFoldersRefusesBadFolders(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []Folder{
		{Name: "../up", Files: []FolderFile{{Path: "SKILL.md"}}},
		{Name: ".hidden", Files: []FolderFile{{Path: "SKILL.md"}}},
		{Name: "ok", Files: []FolderFile{{Path: "../x.md"}}},
		{Name: "ok", Files: []FolderFile{{Path: "references/../../x.md"}}},
		{Name: "ok", Files: []FolderFile{{Path: markerFile}}},
		{Name: "ok", Files: []FolderFile{{Path: "a.md"}, {Path: "a.md"}}},
	} {
		if _, err := WriteFolders(dir, []Folder{f}, &WriteOptions{Agent: "a"}); err == nil {
			t.Errorf("%+v written", f)
		}
	}
	write(t, filepath.Join(dir, "ok", markerFile), `{"agent":"a","files":["../../etc/passwd"]}`)
	_, err := WriteFolders(dir, []Folder{{Name: "ok", Files: []FolderFile{{Path: "SKILL.md", Data: []byte("x")}}}}, &WriteOptions{Agent: "a"})
	if err == nil || !strings.Contains(err.Error(), "not a file inside the folder") {
		t.Errorf("a marker listing ../../etc/passwd: %v", err)
	}
	if got := files(t, dir); len(got) != 1 {
		t.Errorf("something was written: %v", got)
	}
}

// files lists the regular files under dir, as slash paths.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadMarkerIn: import reads back the marker a write left, with the
// agent's head key for key; a folder without one has none, and a marker
// that is not a small regular file or does not decode is an error.
func TestReadMarkerIn(t *testing.T) {
	dir := t.TempDir()
	label := "Team"
	head := &AgentHead{Frontmatter: [][2]string{{"3md", "1.0"}, {"title", "T"}}, IdentityZ: "0", IdentityLabel: &label}
	folder := Folder{Name: "a", Skill: "a", Files: []FolderFile{{Path: "SKILL.md", Data: []byte(skillMD("a", "", "x"))}, {Path: "references/b.md", Data: []byte("b")}}}
	if _, err := WriteFolders(dir, []Folder{folder}, &WriteOptions{Agent: "T", Source: "/x/agent.3md", Head: head}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMarkerIn(filepath.Join(dir, "a"))
	if err != nil || m == nil {
		t.Fatalf("ReadMarkerIn = %v, %v", m, err)
	}
	if m.Agent != "T" || m.Source != "/x/agent.3md" || m.Skill != "a" || !slices.Equal(m.Files, []string{"SKILL.md", "references/b.md"}) ||
		m.Digests["references/b.md"] != digest.Of([]byte("b")) || !reflect.DeepEqual(m.Head, head) {
		t.Errorf("marker %+v, head %+v", m, m.Head)
	}

	for _, tt := range []struct {
		name, marker string // marker "" writes none; "/" makes it a directory
		want         string // "" wants nil, nil
	}{
		{"none", "", ""},
		{"a directory", "/", "not a marker this program wrote"},
		{"not JSON", "{", "does not decode"},
		{"a path outside", `{"agent":"T","files":["../x"]}`, "not a file inside the folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			folder := filepath.Join(t.TempDir(), "s")
			write(t, filepath.Join(folder, "SKILL.md"), skillMD("s", "", ""))
			switch tt.marker {
			case "":
			case "/":
				if err := os.Mkdir(filepath.Join(folder, markerFile), 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				write(t, filepath.Join(folder, markerFile), tt.marker)
			}
			m, err := ReadMarkerIn(folder)
			switch {
			case tt.want == "" && (m != nil || err != nil):
				t.Errorf("ReadMarkerIn = %+v, %v; want no marker", m, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("ReadMarkerIn = %+v, %v; want an error saying %q", m, err, tt.want)
			}
		})
	}
	if _, err := ReadMarkerIn(filepath.Join(dir, "missing")); err == nil {
		t.Error("ReadMarkerIn read a folder that does not exist")
	}
}
