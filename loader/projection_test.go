package loader

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
)

// TestProjection: an agent file's projection is agentfile.Project over the
// catalog in force and the file (bodies only when asked); skill folders'
// is agentfile.ProjectLinked, and asking them for bodies is an error.
func TestProjection(t *testing.T) {
	path := writeAgent(t, `---
3md: 1.0
title: Pager
---
@plane z=0 label="pager" kind=identity
You are Pager.

@plane z=1 label="logs" triggers="pod logs" inputs="pod" tool="kubectl logs {pod}"
Read [[z=2]] first.

@plane z=2 label="context" triggers="which cluster"
Check the context.
`)
	a := openPath(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, bodies := range []bool{false, true} {
		got, err := a.Projection(bodies)
		if err != nil {
			t.Fatalf("Projection(%v): %v", bodies, err)
		}
		want, err := agentfile.Project(a.Catalog(), f, bodies)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Errorf("Projection(%v) = %s\nwant %s", bodies, g, w)
		}
		if hasBodies := strings.Contains(mustJSON(t, got), `"bodies"`); hasBodies != bodies {
			t.Errorf("Projection(%v): bodies present = %v", bodies, hasBodies)
		}
	}

	ag, err := OpenFolders(bg, []string{"testdata/folders"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	got, err := ag.Projection(false)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := mustJSON(t, got), mustJSON(t, agentfile.ProjectLinked(ag.Scanned())); g != w || len(got.Skills) != ag.SkillCount() {
		t.Errorf("folders: Projection = %s\nwant %s", g, w)
	}
	if _, err := ag.Projection(true); err == nil {
		t.Error("folders: Projection(true) gave no error")
	}

	// A file gone since the open is an error naming it, not a panic.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Projection(false); err == nil || !strings.Contains(err.Error(), "agent.3md") {
		t.Errorf("removed file: %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
