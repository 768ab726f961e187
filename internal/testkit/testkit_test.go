package testkit

import (
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestTree: files by relative path with their contents, links as their
// target, directories only through what they hold, a missing dir empty.
func TestTree(t *testing.T) {
	dir := t.TempDir()
	WriteFile(t, filepath.Join(dir, "a", "b", "c.md"), "deep\n")
	WriteFile(t, filepath.Join(dir, "top.md"), "top\n")
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("top.md", filepath.Join(dir, "link")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	want := map[string]string{
		filepath.Join("a", "b", "c.md"): "deep\n",
		"top.md":                        "top\n",
		"link":                          "-> top.md",
	}
	if got := Tree(t, dir); !maps.Equal(got, want) {
		t.Errorf("Tree = %q, want %q", got, want)
	}
	if got := Tree(t, filepath.Join(dir, "absent")); len(got) != 0 {
		t.Errorf("Tree of a missing dir = %q, want empty", got)
	}
}

// TestSyncBuffer: concurrent writes all land, and String reads them.
func TestSyncBuffer(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("x"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := len(b.String()); n != 800 {
		t.Errorf("%d bytes written, want 800", n)
	}
}

// TestAgentFiles: the module's examples and agentfile test data are found
// from this package's place in the tree.
func TestAgentFiles(t *testing.T) {
	files := AgentFiles(t, filepath.Join("..", ".."), 45)
	for _, f := range files {
		if filepath.Ext(f) != ".3md" {
			t.Errorf("%s is not an agent file", f)
		}
	}
}
