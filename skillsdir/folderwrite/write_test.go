package folderwrite

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
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
