package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/synth"
	"github.com/agent3md/agent3md/loader"
)

// TestFolderNonUTF8FileName: a file whose name is not UTF-8 (Latin-1
// "café.txt") would be named one way in _manifest and skills/list (JSON
// text, where the byte becomes U+FFFD) and another in its URI; it is not
// served at all, with a file-name warning, while its UTF-8 neighbour is
// listed and read under one name (docs/skill-folders.md §3, §6).
func TestFolderNonUTF8FileName(t *testing.T) {
	dst := synth.CopyDir(t, "../loader/testdata/folders")
	latin1 := filepath.Join(dst, "lint", "caf\xe9.txt")
	if err := os.WriteFile(latin1, []byte("latin-1 name\n"), 0o644); err != nil {
		t.Skip("this file system refuses a name that is not UTF-8:", err)
	}
	if err := os.WriteFile(filepath.Join(dst, "lint", "café.txt"), []byte("utf-8 name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := loader.OpenFolders(context.Background(), []string{dst}, &loader.FolderOptions{NoRescan: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if !strings.Contains(strings.Join(a.Findings(), "\n"), "[file-name]") {
		t.Errorf("no file-name finding: %q", a.Findings())
	}
	s := newServer(&Options{Source: Loaded(a)})
	sess := newSession(nil)
	mb, _, _ := readBytes(t, s, sess, "skill://lint/_manifest")
	var manifest struct{ Files []struct{ Path string } }
	if err := json.Unmarshal(mb, &manifest); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range manifest.Files {
		paths = append(paths, f.Path)
		if strings.ContainsRune(f.Path, utf8.RuneError) {
			t.Errorf("_manifest names %q, which is no file's name", f.Path)
		}
	}
	if !strings.Contains(strings.Join(paths, "\n"), "café.txt") {
		t.Errorf("_manifest lacks the UTF-8 café.txt: %q", paths)
	}
	if data, _, _ := readBytes(t, s, sess, "skill://lint/caf%C3%A9.txt"); string(data) != "utf-8 name\n" {
		t.Errorf("café.txt reads %q", data)
	}
	_, err = rpc(t, s, sess, methodResourcesRead, map[string]any{"uri": "skill://lint/caf%E9.txt"})
	var we *wireError
	if !errors.As(err, &we) || we.Code != codeResourceNotFound {
		t.Errorf("the Latin-1 name read by its URI: %v, want the unknown-resource error", err)
	}
}
