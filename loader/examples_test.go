package loader

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/agent3md/agent3md/agentfile"
)

// agentFiles are every agent this package can test against: the
// conformance vectors that parse and the repository's examples/.
func agentFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"testdata/conformance/agent3md/*.3md", "../examples/*.3md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	return out
}

// TestEveryAgent opens every agent file and exercises every operation on
// every skill: bodies verify, resolve starts with the skill, commands fill,
// and SKILL.md renders with one reference per other skill of the chain
// (skillsdir's tests check the rendering itself).
func TestEveryAgent(t *testing.T) {
	for _, path := range agentFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a, err := Open(path, nil)
			var pe *agentfile.ParseError
			if errors.As(err, &pe) && pe.Name == agentfile.DuplicateSkill && filepath.Base(path) == "invalid-dup-skill.3md" {
				return // refused, as TestOpenRefusesNameClash checks
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if _, err := a.Manifest(bg); err != nil {
				t.Fatal(err)
			}
			st := a.current()
			for i, s := range a.Skills() {
				body := mustBody(t, a, s.Name)
				if j, _ := st.byName.Find(s.Name); j != i {
					t.Fatalf("skill %d (%q) is found by name at %d: Open let two skills share a name", i, s.Name, j)
				}
				rs, err := a.Resolve(bg, s.Name)
				if err != nil || rs[0].Name != s.Name || rs[0].Body != body {
					t.Fatalf("Resolve(%s): %v", s.Name, err)
				}
				if _, err := a.Command(s.Name, map[string]string{}); err != nil {
					t.Fatal(err)
				}
				r, err := a.SkillMD(bg, s.Name)
				if err != nil {
					t.Fatal(err)
				}
				// One reference per dependency, and the identity (AGENT.md).
				if len(r.References) != len(rs) || r.References[len(rs)-1].Path != "references/AGENT.md" {
					t.Fatalf("%s: %d references for a chain of %d", s.Name, len(r.References), len(rs))
				}
			}
		})
	}
}
