package importer_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/skillsdir/importer"
)

// TestImportWriteFileRefusesOverwrite: an existing output is kept unless
// forced; a folder without skills imports nothing.
func TestImportWriteFileRefusesOverwrite(t *testing.T) {
	src := filepath.Join(t.TempDir(), "skills")
	writeSkill(t, src, "one", "description: One.\n", "One.\n", nil)
	out := filepath.Join(t.TempDir(), "agent.3md")
	if err := os.WriteFile(out, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := importer.Import(context.Background(), []string{src}, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = r.WriteFile(out, false)
	if data, _ := os.ReadFile(out); err == nil || !strings.Contains(err.Error(), "already exists; pass --force") || string(data) != "mine" {
		t.Fatalf("err %v, file %q", err, data)
	}
	if err := r.WriteFile(out, true); err != nil {
		t.Fatalf("forced: %v", err)
	}
	if data, _ := os.ReadFile(out); !bytes.Equal(data, r.Data) || !strings.Contains(string(data), "@plane z=1 kind=skill label=\"one\"") {
		t.Fatalf("forcing did not replace the file: %q", data)
	}
	if _, err := importer.Import(context.Background(), []string{t.TempDir()}, nil); err == nil || !strings.Contains(err.Error(), "no valid skill folder") {
		t.Fatalf("empty folder: %v", err)
	}
}
