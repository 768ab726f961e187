package loader

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// writeAgent writes text to a fresh file and returns its path.
func writeAgent(t testing.TB, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.3md")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// openText opens an agent written from text and closes it with the test.
func openText(t testing.TB, text string) *Agent {
	t.Helper()
	return openPath(t, writeAgent(t, text))
}

// openTextOrDeps opens text, or the conformance vector valid-deps.3md
// when text is empty (table tests whose rows may name either).
func openTextOrDeps(t testing.TB, text string) *Agent {
	t.Helper()
	if text == "" {
		return openPath(t, vector("valid-deps.3md"))
	}
	return openText(t, text)
}

func openPath(t testing.TB, path string) *Agent {
	t.Helper()
	return openWith(t, path, nil)
}

// openEager opens path with a stat on every read, so a test sees a replaced
// file on the very next read.
func openEager(t testing.TB, path string) *Agent {
	t.Helper()
	return openWith(t, path, &Options{Recheck: -1})
}

func openWith(t testing.TB, path string, opts *Options) *Agent {
	t.Helper()
	a, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func vector(name string) string {
	return filepath.Join("testdata", "conformance", "agent3md", name)
}

var bg = context.Background()

// body fetches a skill body or fails the test.
func mustBody(t testing.TB, a *Agent, name string) string {
	t.Helper()
	b, err := a.Body(bg, name)
	if err != nil {
		t.Fatalf("Body(%q): %v", name, err)
	}
	return b
}

const head = "---\n3md: 1.0\ntitle: T\nmodel: m\ntools: sh, printf\n---\n@plane z=0 label=\"T\" kind=identity\n# T\nIdentity text.\n\n"
