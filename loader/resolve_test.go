package loader

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func resolveNames(t *testing.T, a *Agent, name string) []string {
	t.Helper()
	rs, err := a.Resolve(bg, name)
	if err != nil {
		t.Fatalf("Resolve(%q): %v", name, err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
		if want := mustBody(t, a, r.Name); r.Body != want {
			t.Fatalf("Resolve body of %s = %q, Body = %q", r.Name, r.Body, want)
		}
	}
	return out
}

func TestResolve(t *testing.T) {
	graph := head +
		"@plane z=1 label=a\n[[z=2]] then [[z=3|c]] then [[z=2]] again\n\n" +
		"@plane z=2 label=b\n[[z=4]] [[z=3]]\n\n" +
		"@plane z=3 label=c\n[[z=1]] back to a, [[z=0]] identity, [[z=77]] missing, [[z=4.0]] decimal\n\n" +
		"@plane z=4 label=d\n[[z=4]] self\n\n" +
		"@plane z=5 label=e\nno links\n"
	tests := []struct {
		name, text, skill string
		want              []string
	}{
		{"vector deps", "", "answer", []string{"answer", "cite"}},
		{"vector leaf", "", "cite", []string{"cite"}},
		{"depth first in body order, each once", graph, "a", []string{"a", "b", "d", "c"}},
		{"cycle back to the start terminates", graph, "c", []string{"c", "a", "b", "d"}},
		{"self link", graph, "d", []string{"d"}},
		{"no links", graph, "e", []string{"e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openTextOrDeps(t, tt.text)
			if got := resolveNames(t, a, tt.skill); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Resolve(%s) = %v, want %v", tt.skill, got, tt.want)
			}
		})
	}
}

// TestResolveText: the chain as one text, a "### name" section a skill
// with its body, in Resolve's order, sections a blank line apart; an
// unknown name is Resolve's error.
func TestResolveText(t *testing.T) {
	a := openText(t, head+"@plane z=1 label=a\nA [[z=2]]\n\n@plane z=2 label=b\nB\n")
	got, err := a.ResolveText(bg, "a")
	if err != nil {
		t.Fatal(err)
	}
	want := "### a\n" + mustBody(t, a, "a") + "\n\n### b\n" + mustBody(t, a, "b")
	if got != want {
		t.Fatalf("ResolveText(a) = %q, want %q", got, want)
	}
	if got := ChainText(nil); got != "" {
		t.Errorf("ChainText(nil) = %q", got)
	}
	var ue *UnknownSkillError
	if _, err := a.ResolveText(bg, "zz"); !errors.As(err, &ue) {
		t.Errorf("ResolveText(zz) error = %v, want an UnknownSkillError", err)
	}
}

// TestChainWithin: the bound counts the skills Resolve would return,
// cycles and repeated links once; an unknown name is within any bound.
func TestChainWithin(t *testing.T) {
	a := openText(t, head+
		"@plane z=1 label=a\n[[z=2]] then [[z=3|c]] then [[z=2]] again\n\n"+
		"@plane z=2 label=b\n[[z=4]] [[z=3]]\n\n"+
		"@plane z=3 label=c\n[[z=1]] back to a\n\n"+
		"@plane z=4 label=d\n[[z=4]] self\n")
	tests := []struct {
		skill string
		max   int
		want  bool
	}{
		{"a", 4, true}, // a b d c
		{"a", 3, false},
		{"c", 4, true}, // c a b d
		{"d", 1, true},
		{"d", 0, false},
		{"nope", 0, true},
	}
	for _, tt := range tests {
		if got := a.ChainWithin(tt.skill, tt.max); got != tt.want {
			t.Errorf("ChainWithin(%q, %d) = %v, want %v", tt.skill, tt.max, got, tt.want)
		}
	}
}

func TestResolveCycleVector(t *testing.T) {
	a := openPath(t, vector("invalid-cycle.3md"))
	for _, s := range a.Skills() {
		got := resolveNames(t, a, s.Name)
		if len(got) == 0 || got[0] != s.Name || len(got) > len(a.Skills()) {
			t.Fatalf("Resolve(%s) = %v", s.Name, got)
		}
	}
}

// TestResolveLongChain resolves a chain of 100,000 skills, each linking to
// the next: no recursion, so no stack growth to speak of, and every skill
// once in order.
func TestResolveLongChain(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	p := filepath.Join(t.TempDir(), "chain.3md")
	var b strings.Builder
	b.WriteString(head)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "@plane z=%d label=s%d\n[[z=%d]]\n", i, i, i+1)
	}
	// The last link dangles; close the loop too, for good measure.
	fmt.Fprintf(&b, "@plane z=%d label=last\nback to [[z=1]]\n", n+1)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a := openPath(t, p)
	rs, err := a.Resolve(bg, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != n+1 || rs[0].Name != "s1" || rs[n-1].Name != fmt.Sprintf("s%d", n) || rs[n].Name != "last" {
		t.Fatalf("got %d skills, first %s, last %s", len(rs), rs[0].Name, rs[len(rs)-1].Name)
	}
}

// TestChainMatchesRecursiveWalk holds chainUpTo to the recursive
// definition (the skill, then each link's chain in link order, each skill
// once) on random link graphs, small and past smallChain, with cycles,
// diamonds and self-links, and with limits.
func TestChainMatchesRecursiveWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		n := 1 + rng.IntN(80)
		st := &state{deps: make([][]int, n)}
		for j := range st.deps {
			for k := rng.IntN(4); k > 0; k-- {
				st.deps[j] = append(st.deps[j], rng.IntN(n))
			}
		}
		start := rng.IntN(n)
		var want []int
		seen := map[int]bool{}
		var walk func(j int)
		walk = func(j int) {
			if seen[j] {
				return
			}
			seen[j] = true
			want = append(want, j)
			for _, d := range st.deps[j] {
				walk(d)
			}
		}
		walk(start)
		got, complete := st.chainUpTo(start, -1)
		if !complete || !slices.Equal(got, want) {
			t.Fatalf("round %d, graph %v from %d: chain %v (complete %v), want %v", round, st.deps, start, got, complete, want)
		}
		if limit := rng.IntN(len(want) + 1); limit < len(want) {
			got, complete = st.chainUpTo(start, limit)
			if complete || !slices.Equal(got, want[:limit]) {
				t.Fatalf("round %d: chain up to %d = %v (complete %v), want %v", round, limit, got, complete, want[:limit])
			}
		}
	}
}
