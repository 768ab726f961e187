package router

import (
	"slices"
	"testing"

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
