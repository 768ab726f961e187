package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent3md/agent3md/loader"
)

// TestEndpointSlug: an agent's endpoint is its Latin title, else its
// `agent` key, else its file's name, and two agents with Chinese titles
// are two endpoints.
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
	tests := []struct {
		name, file, front, want string
	}{
		{"latin title wins", "a.3md", "title: Forge Tools\nagent: devtools\n", "forge-tools"},
		{"chinese title: agent key", "b.3md", "title: 小帮\nagent: kefu\n", "kefu"},
		{"chinese title, no key: file name", "shop-help.3md", "title: 客服助手\n", "shop-help"},
		{"partly latin title: agent key", "c.3md", "title: Café Bot\nagent: cafe\n", "cafe"},
		{"nothing latin anywhere: partial slug", "帮助.3md", "title: 帮助 2\n", "2"},
		{"nothing at all", "帮.3md", "title: 帮\n", "agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := agent(tt.file, tt.front)
			ag, err := loader.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ag.Close()
			if got := endpointSlug(ag, path); got != tt.want {
				t.Errorf("endpointSlug = %q, want %q", got, tt.want)
			}
		})
	}

	// Served together, as `serve a.3md b.3md` would.
	one := agent("one.3md", "title: 小帮\nagent: kefu\n")
	two := agent("two.3md", "title: 小店\n")
	a := &app{stderr: io.Discard, stdout: io.Discard}
	a.cache.noCache = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sv, err := a.openServed(ctx, []string{one, two}, servedOptions{noWatch: true, logger: slog.New(slog.NewTextHandler(io.Discard, nil)), folders: &folderFlags{maxDepth: 4, maxFileBytes: 1 << 20}})
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
