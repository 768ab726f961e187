package loader_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent3md/agent3md/loader"
)

// A server that reloads whole versions opens each one with OpenStable and
// NoRescan: the Agent serves that version's bodies or says it is stale,
// and Version tells whether a reload found anything new.
func ExampleOpenStable() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "agent.3md")
	text := "---\n3md: 1.0\ntitle: T\n---\n@plane z=0 kind=identity label=T\nid\n@plane z=1 label=greet\nSay hello.\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}
	opts := &loader.Options{NoRescan: true}
	a, err := loader.OpenStable(path, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close()
	body, _ := a.Body(context.Background(), "greet")
	fmt.Println(body)

	// An edit in place: this version can no longer serve the body.
	if err := os.WriteFile(path, []byte(strings.Replace(text, "hello", "HELLO", 1)), 0o644); err != nil {
		log.Fatal(err)
	}
	_, err = a.Body(context.Background(), "greet")
	fmt.Println(errors.Is(err, loader.ErrStale))

	// The reload sees other bytes, so it is a new version.
	b, err := loader.OpenStable(path, opts)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	fmt.Println(b.Version().SHA256 != a.Version().SHA256)
	// Output:
	// Say hello.
	// true
	// true
}
