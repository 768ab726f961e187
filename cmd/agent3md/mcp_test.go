package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPHandshakeReportsLoadFailure: a broken agent file is served, and
// the client's initialize is answered with the reason (file and line) as
// a JSON-RPC error, whether the error sits in the head of the file or far
// into it; the process still exits 1.
func TestMCPHandshakeReportsLoadFailure(t *testing.T) {
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	for _, tt := range []struct {
		name, text, want string
	}{
		{"head", "---\n3md: 1.0\ntitle: T\n", "invalidFrontmatter"},
		{"late", "---\n3md: 1.0\ntitle: T\n---\n@plane z=0 kind=identity\n# T\n\n@plane z=1 label=\"a\" triggers=\"do a\"\nDo a.\n@plane z=2 label=\"b\"\nB.\n@plane z=2 label=\"c\"\nC.\n", "duplicatePlane"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "broken.3md")
			if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := cliIn(t, init, "mcp", "--no-cache", path)
			if code != exitInvalid {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitInvalid, errOut)
			}
			if !strings.Contains(out, `"id":1,"error"`) || !strings.Contains(out, tt.want) || !strings.Contains(out, "broken.3md") {
				t.Errorf("initialize answered %q; want an error naming the file and %s", out, tt.want)
			}
		})
	}
}
