package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand: what the import command adds to importer.Import —
// its output (a file, or standard output with the summary on stderr), its
// refusal to replace a file without --force, and its exit codes (2 for a
// folder with nothing to import, 1 for a name in two folders).
func TestImportCommand(t *testing.T) {
	base := t.TempDir()
	src, other := filepath.Join(base, "team"), filepath.Join(base, "other")
	write(t, filepath.Join(src, "one", "SKILL.md"), "---\nname: one\ndescription: One.\n---\nOne.\n")
	out := filepath.Join(t.TempDir(), "agent.3md")
	write(t, out, "mine")
	code, _, stderr := cli(t, "import", src, "-o", out)
	if data, _ := os.ReadFile(out); code != 2 || !strings.Contains(stderr, "already exists; pass --force") || string(data) != "mine" {
		t.Fatalf("exit %d, stderr %q, file %q", code, stderr, data)
	}
	code, stdout, stderr := cli(t, "import", src, "-o", out, "--force")
	if code != 0 || !strings.Contains(stdout, "wrote "+out+`: agent "team": 1 skills, 0 links between them, 0 files listed, 0 broken skills skipped`) {
		t.Fatalf("--force: exit %d\n%s%s", code, stdout, stderr)
	}
	if data, _ := os.ReadFile(out); !bytes.HasPrefix(data, []byte("---\n3md:")) {
		t.Fatalf("--force did not replace the file: %q", data)
	}
	code, stdout, stderr = cli(t, "import", src, "-o", "-")
	if code != 0 || !strings.Contains(stdout, "@plane z=1 kind=skill label=\"one\"") || !strings.Contains(stderr, "agent3md: import: agent \"team\": 1 skills") {
		t.Fatalf("-o -: exit %d:\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := cli(t, "import", t.TempDir(), "-o", "-"); code != 2 || !strings.Contains(stderr, "no valid skill folder") {
		t.Fatalf("empty folder: exit %d: %s", code, stderr)
	}
	write(t, filepath.Join(other, "one", "SKILL.md"), "---\nname: one\ndescription: Another one.\n---\nOne.\n")
	code, _, stderr = cli(t, "import", src, other, "-o", "-")
	if code != 1 || !strings.Contains(stderr, filepath.Join(src, "one", "SKILL.md")) || !strings.Contains(stderr, filepath.Join(other, "one", "SKILL.md")) {
		t.Fatalf("clash: exit %d: %s", code, stderr)
	}
}
