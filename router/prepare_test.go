package router

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestPrepare: an entry prepared before the skills are known is adopted
// when it was built from exactly those skills, and otherwise closed and
// rebuilt; nothing is prepared when there is no entry or a damaged one.
func TestPrepare(t *testing.T) {
	skills := genSkills(600)
	dir := t.TempDir()
	opts := cacheOpts(dir)
	if p, err := Prepare(context.Background(), opts); p != nil || err != nil {
		t.Fatalf("Prepare with no entry: %v, %v; want nothing", p, err)
	}
	if _, err := buildEntry(context.Background(), skills, opts); err != nil {
		t.Fatal(err)
	}

	p, err := Prepare(context.Background(), opts)
	if err != nil || p == nil {
		t.Fatalf("Prepare: %v, %v", p, err)
	}
	withPrep := *opts
	withPrep.Prepared = p
	r := newTest(t, skills, &withPrep)
	if info := r.Info(); info.Index != IndexCacheHit || !info.Prepared || !p.done {
		t.Fatalf("prepared entry not adopted: %+v", info)
	}
	if err := p.Close(); err != nil { // a no-op once adopted
		t.Fatal(err)
	}
	sameRoutes(t, r, skills)

	// Other skills under the same hash: the prepared entry is refused,
	// closed, and the index rebuilt for the skills given.
	p, err = Prepare(context.Background(), opts)
	if err != nil || p == nil {
		t.Fatalf("Prepare: %v, %v", p, err)
	}
	other := genSkills(601)[1:]
	withPrep.Prepared = p
	r2 := newTest(t, other, &withPrep)
	if info := r2.Info(); info.Index != IndexCacheBuilt || info.Reason == "" || info.Prepared {
		t.Fatalf("foreign prepared entry: %+v, want a rebuilt entry saying why", info)
	}
	if !p.done {
		t.Fatal("the refused entry was left open")
	}
	sameRoutes(t, r2, other)

	// A damaged entry is not prepared.
	p2, _ := Prepare(context.Background(), opts)
	if p2 == nil {
		t.Fatal("no entry prepared after the rebuild")
	}
	p2.Close()
	p2.Close()
	entry := p2.c.path
	if err := os.WriteFile(filepath.Join(entry, phrasesName), []byte("A3PHdamaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := Prepare(context.Background(), opts); p != nil || err != nil {
		t.Fatalf("Prepare of a damaged entry: %v, %v; want nothing", p, err)
	}
}
