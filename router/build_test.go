package router

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildOfflineCancelled pins that a cancelled build stops where it is:
// the builder is abandoned, not closed, so it never merges the segments
// it wrote into a final one.
func TestBuildOfflineCancelled(t *testing.T) {
	skills := genSkills(3 * progressEvery)
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	progress := func(done, _ int) {
		if done >= progressEvery {
			cancel()
		}
	}
	dir := filepath.Join(t.TempDir(), "idx")
	_, err = buildOffline(ctx, dir, t.TempDir(), &corpus{m: m, skills: Skills(skills)}, progress)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("buildOffline cancelled after %d skills: err = %v, want context.Canceled", progressEvery, err)
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".zap") {
			t.Errorf("cancelled build left a final segment %s: it merged after cancellation", p)
		}
		return nil
	})
}

func TestBuildOfflineNoSkills(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	_, err = buildOffline(context.Background(), filepath.Join(t.TempDir(), "idx"), t.TempDir(), &corpus{m: m, skills: Skills(nil)}, nil)
	if err == nil || !strings.Contains(err.Error(), "no skills to index") {
		t.Fatalf("buildOffline of no skills: err = %v", err)
	}
}
