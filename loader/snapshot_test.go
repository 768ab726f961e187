package loader

import (
	"slices"
	"testing"
)

// TestSnapshotMatchesSkills: a Snapshot reads the same skills, planes and
// dependency names as the copied catalog Skills returns.
func TestSnapshotMatchesSkills(t *testing.T) {
	for _, path := range []string{"../examples/devtools.3md", "../examples/oncall.3md"} {
		a, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		snap, infos := a.Snapshot(), a.Skills()
		if snap.Len() != len(infos) || snap.Catalog() != a.Catalog() {
			t.Fatalf("%s: %d skills, want %d", path, snap.Len(), len(infos))
		}
		deps := 0
		for i, in := range infos {
			if snap.Skill(i).Name != in.Name || snap.Plane(i).Description != in.Description {
				t.Errorf("%s: skill %d is %q, want %q", path, i, snap.Skill(i).Name, in.Name)
			}
			if got := snap.DepNames(i); !slices.Equal(got, in.Deps) {
				t.Errorf("%s: %s deps %q, want %q", path, in.Name, got, in.Deps)
			}
			deps += len(in.Deps)
		}
		if deps == 0 {
			t.Errorf("%s: no dependencies to compare", path)
		}
		a.Close()
	}
	var zero Snapshot
	if zero.Len() != 0 || zero.Catalog() != nil {
		t.Error("the zero Snapshot must be empty")
	}
}
