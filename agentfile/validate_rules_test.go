package agentfile

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// agentSrc builds an agent file: extra frontmatter lines, an identity plane
// at z=0 and the given skill planes (directive line, then body).
func agentSrc(fm string, skills ...string) string {
	var b strings.Builder
	b.WriteString("---\n3md: 1.0\ntitle: Test\n" + fm + "---\n")
	b.WriteString("@plane z=0 label=\"test\" kind=identity\nYou are a test.\n\n")
	for _, s := range skills {
		b.WriteString(s + "\n\n")
	}
	return b.String()
}

func validateSrc(t *testing.T, src string) *Report {
	t.Helper()
	return Validate(mustParse(t, src))
}

// TestValidateRules checks rules one at a time beyond the conformance
// vectors: each case lists the error and warning rules it must produce.
func TestValidateRules(t *testing.T) {
	ok := `@plane z=1 label="ok" triggers="go"` + "\nBody."
	for _, tt := range []struct {
		name     string
		src      string
		errors   []string
		warnings []string
	}{
		{"valid", agentSrc("tools: git\n", `@plane z=1 label="log" triggers="log" inputs="n:number" tool="git log -n {n}"`), nil, nil},
		{"self cycle", agentSrc("", `@plane z=1 label="a" triggers="a"`+"\nSee [[z=1]]."), []string{RuleCycle}, nil},
		{"three cycle", agentSrc("",
			`@plane z=1 label="a" triggers="a"`+"\n[[z=2]]",
			`@plane z=2 label="b" triggers="b"`+"\n[[z=3]]",
			`@plane z=3 label="c" triggers="c"`+"\n[[z=1]] and again [[z=1]]"), []string{RuleCycle}, nil},
		{"two cycles", agentSrc("",
			`@plane z=1 label="a" triggers="a"`+"\n[[z=1]] [[z=2]]",
			`@plane z=2 label="b" triggers="b"`+"\n[[z=3]]",
			`@plane z=3 label="c" triggers="c"`+"\n[[z=2]] [[z=2|again]]"), []string{RuleCycle, RuleCycle}, nil},
		{"link to identity is no cycle", agentSrc("", `@plane z=1 label="a" triggers="a"`+"\n[[z=0]]"), nil, nil},
		{"decimal link is not a dependency", agentSrc("", `@plane z=1 label="a" triggers="a"`+"\n[[z=1.0]] [[z=7.5]]"), nil, nil},
		{"dead link", agentSrc("", `@plane z=1 label="a" triggers="a"`+"\n[[z=9]]"), []string{RuleDeadLink}, nil},
		{"undeclared tool", agentSrc("tools: git\n", `@plane z=1 label="a" triggers="a" tool="rg foo"`), nil, []string{RuleUndeclaredTool}},
		{"unused input", agentSrc("tools: git\n", `@plane z=1 label="a" triggers="a" inputs="q, n" tool="git grep {q}"`), nil, []string{RuleUnusedInput}},
		{"empty tool", agentSrc("", `@plane z=1 label="a" triggers="a" tool=" "`), nil, []string{RuleTool}},
		{"tool input", agentSrc("tools: git\n", `@plane z=1 label="a" triggers="a" tool="git show {rev}"`), []string{RuleToolInput}, nil},
		{"no triggers", agentSrc("", `@plane z=1 label="a"`), nil, []string{RuleTriggers}},
		{"entry not an integer", agentSrc("entry: 1.5\n", ok), []string{RuleEntry}, nil},
		{"entry not a number", agentSrc("entry: first\n", ok), []string{RuleEntry}, nil},
		{"entry names no plane", agentSrc("entry: 4\n", ok), []string{RuleEntry}, nil},
		{"entry ok", agentSrc("entry: 1\n", ok), nil, nil},
		{"dup input", agentSrc("", `@plane z=1 label="a" triggers="a" inputs="q, q:number"`), []string{RuleDupInput}, nil},
		{"input type", agentSrc("", `@plane z=1 label="a" triggers="a" inputs="q:int"`), []string{RuleInputType}, nil},
		{"input type case", agentSrc("", `@plane z=1 label="a" triggers="a" inputs="q:Number?, b:BOOLEAN"`), nil, nil},
		{"missing label", agentSrc("", `@plane z=1 triggers="a"`), []string{RuleMissingLabel}, nil},
		{"blank label", agentSrc("", `@plane z=1 label=" " triggers="a"`), []string{RuleMissingLabel}, nil},
		{"unique skill", agentSrc("", ok, `@plane z=2 label="ok" triggers="b"`), []string{RuleUniqueSkill}, nil},
		{"two identities", agentSrc("", ok, `@plane z=2 label="other" kind=identity`), []string{RuleIdentity}, nil},
		{"no name", "---\n3md: 1.0\n---\n@plane z=0 kind=identity\nhi\n", []string{RuleFrontmatter}, nil},
		{"agent key names it", "---\n3md: 1.0\nagent: a\n---\n@plane z=0 kind=identity\nhi\n", nil, nil},
		{"no planes", "---\n3md: 1.0\ntitle: T\n---\n", []string{RuleIdentity}, nil},
		{"unknown keys are fine", agentSrc("colour: blue\n", `@plane z=1 label="a" triggers="a" shape=round`), nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := validateSrc(t, tt.src)
			if got := rules(r.Errors); !reflect.DeepEqual(got, sorted(tt.errors)) {
				t.Errorf("errors %v, want %v: %+v", got, tt.errors, r.Errors)
			}
			if got := rules(r.Warnings); !reflect.DeepEqual(got, sorted(tt.warnings)) {
				t.Errorf("warnings %v, want %v: %+v", got, tt.warnings, r.Warnings)
			}
			for _, f := range append(r.Errors, r.Warnings...) {
				if f.Message == "" || f.Line <= 0 {
					t.Errorf("finding lacks a message or line: %+v", f)
				}
			}
		})
	}
}

// TestValidateCycleMessages: a cycle names its skills in link order and
// starts at its first skill in source order.
func TestValidateCycleMessages(t *testing.T) {
	r := validateSrc(t, agentSrc("",
		`@plane z=1 label="a" triggers="a"`+"\n[[z=2]]",
		`@plane z=2 label="b" triggers="b"`+"\n[[z=3]]",
		`@plane z=3 label="c" triggers="c"`+"\n[[z=1]]",
		`@plane z=4 label="d" triggers="d"`+"\n[[z=4]]"))
	want := []string{"a -> b -> c -> a", "d -> d"}
	if len(r.Errors) != len(want) {
		t.Fatalf("errors %+v, want %d cycles", r.Errors, len(want))
	}
	for i, w := range want {
		if !strings.Contains(r.Errors[i].Message, w) {
			t.Errorf("finding %d %q does not name %q", i, r.Errors[i].Message, w)
		}
	}
	if *r.Errors[0].Z != 1 || *r.Errors[1].Z != 4 {
		t.Errorf("cycles reported at z=%v and z=%v, want 1 and 4", *r.Errors[0].Z, *r.Errors[1].Z)
	}
}

// chainSrc builds n skills where skill k depends on skill k+1; when back is
// set, every skill also depends on the first one.
func chainSrc(n int, back bool) string {
	var b strings.Builder
	b.WriteString("---\n3md: 1.0\ntitle: Chain\n---\n@plane z=0 label=\"chain\" kind=identity\nChain.\n")
	for k := 1; k <= n; k++ {
		// A plain first paragraph keeps the description off the Markdown
		// parser, so 100,000 skills scan quickly.
		fmt.Fprintf(&b, "@plane z=%d label=\"s%d\" triggers=\"s%d\"\nStep %d.\n\n", k, k, k, k)
		if k < n {
			fmt.Fprintf(&b, "Next: [[z=%d]].\n", k+1)
		}
		if back {
			b.WriteString("Back: [[z=1]].\n")
		}
	}
	return b.String()
}

// TestValidateLongChain: a 100,000-long dependency chain is walked without
// recursion (no stack overflow) and is no cycle.
func TestValidateLongChain(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 skills")
	}
	r := validateSrc(t, chainSrc(100_000, false))
	if !r.OK() || len(r.Warnings) != 0 {
		t.Fatalf("chain: %d errors (first %+v), %d warnings", len(r.Errors), first(r.Errors), len(r.Warnings))
	}
}

// TestValidateManyCycles: a chain whose every skill also links back to the
// first holds one cycle per skill. The report stays readable and bounded:
// a capped number of cycle findings, each naming a bounded number of skills,
// and one finding counting the rest.
func TestValidateManyCycles(t *testing.T) {
	const n = 3000
	r := validateSrc(t, chainSrc(n, true))
	total := 0
	for _, f := range r.Errors {
		if f.Rule != RuleCycle {
			t.Fatalf("unexpected finding %+v", f)
		}
		total += len(f.Message)
	}
	if len(r.Errors) < 2 || len(r.Errors) > maxCycleReports+1 {
		t.Errorf("%d cycle findings, want between 2 and %d", len(r.Errors), maxCycleReports+1)
	}
	if total > 64<<10 {
		t.Errorf("cycle messages total %d bytes", total)
	}
	last := r.Errors[len(r.Errors)-1].Message
	if want := fmt.Sprint(n - maxCycleReports); !strings.Contains(last, want) {
		t.Errorf("last finding %q does not count the %s cycles left unlisted", last, want)
	}
}

func first(fs []Finding) *Finding {
	if len(fs) == 0 {
		return nil
	}
	return &fs[0]
}
