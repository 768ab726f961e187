package router

import (
	"context"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/loader"
)

// TestRouterSkills: the router's view of the agent describes exactly the
// skills the loader lists, through both of its methods.
func TestRouterSkills(t *testing.T) {
	for _, file := range []string{"../mcp/testdata/ada.3md", "../mcp/testdata/many.3md"} {
		a, err := loader.Open(file, nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := newRouterSkills(a)
		infos := a.Skills()
		if rs.Len() != len(infos) {
			t.Fatalf("%s: %d skills, want %d", file, rs.Len(), len(infos))
		}
		for i, want := range infos {
			got := rs.Skill(i)
			var inputs []string
			for _, in := range want.Inputs {
				inputs = append(inputs, in.Name)
			}
			if got.Name != want.Name || got.Z != want.Z || got.Description != want.Description || got.Tool != want.Tool ||
				!slices.Equal(got.Triggers, want.Triggers) || !slices.Equal(got.Inputs, inputs) {
				t.Errorf("%s: skill %d = %+v, want %+v", file, i, got, want)
			}
			if cap(got.Inputs) != len(got.Inputs) {
				t.Errorf("%s: skill %d's inputs can be appended into the next skill's", file, i)
			}
			name, z, triggers := rs.Phrases(i)
			if name != want.Name || z != want.Z || !slices.Equal(triggers, want.Triggers) {
				t.Errorf("%s: Phrases(%d) = %q %v %q, want %q %v %q", file, i, name, z, triggers, want.Name, want.Z, want.Triggers)
			}
		}
		a.Close()
	}
}

// TestRouterSkillsBodies: the router reads each body through the loader,
// and refuses a body that is not the one the scan it indexes saw (the
// file was edited since: the loader re-scans, the router's skills do
// not change), so a cache entry never holds terms of another version.
func TestRouterSkillsBodies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.3md")
	orig, err := os.ReadFile("testdata/dataops.3md")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := loader.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rs := newRouterSkills(a)
	ctx := context.Background()
	read := 0
	err = rs.EachBody(ctx, func(i int, body []byte) error {
		want, _ := a.Body(ctx, rs.skills[i].Name)
		if i != read || string(body) != want || rs.BodySum(i) != crc32.Checksum(body, castagnoli) {
			t.Fatalf("skill %d (after %d): body %q; want %q with its CRC", i, read, body, want)
		}
		read++
		return nil
	})
	if err != nil || read != rs.Len() {
		t.Fatalf("read %d bodies of %d: %v", read, rs.Len(), err)
	}
	edited := strings.Replace(string(orig), "Show how full the filesystem", "Show how very full the filesystem", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	err = rs.EachBody(ctx, func(int, []byte) error { return nil })
	if !errors.Is(err, agentfile.ErrChanged) || !strings.Contains(err.Error(), "disk-usage") {
		t.Fatalf("bodies of an edited file: %v, want ErrChanged naming disk-usage", err)
	}
}
