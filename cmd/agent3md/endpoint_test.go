package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEndpointSlug: two agents with Chinese titles served together are
// two endpoints (loader.Agent.EndpointSlug names each).
func TestEndpointSlug(t *testing.T) {
	dir := t.TempDir()
	agent := func(file, front string) string {
		path := filepath.Join(dir, file)
		body := "---\n3md: 1\n" + front + "---\n@plane z=0 kind=identity\nWho.\n\n@plane z=1 label=ask triggers=\"ask\"\n# Ask\nAsk.\n"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Served together, as `serve a.3md b.3md` would.
	one := agent("one.3md", "title: 小帮\nagent: kefu\n")
	two := agent("two.3md", "title: 小店\n")
	a := &app{stderr: io.Discard, stdout: io.Discard}
	a.cache.noCache = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sv, err := a.openServed(ctx, []string{one, two}, servedOptions{flags: &serverFlags{noWatch: true, folders: folderFlags{maxDepth: 4, maxFileBytes: 1 << 20}}, logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("two agents with Chinese titles cannot be served together: %v", err)
	}
	defer sv.Close()
	var got []string
	for slug := range sv.ep.Agents {
		got = append(got, slug)
	}
	slices.Sort(got)
	if want := []string{"kefu", "two"}; !slices.Equal(got, want) {
		t.Errorf("endpoints %v, want %v", got, want)
	}
}
