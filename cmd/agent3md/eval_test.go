package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/cases"
)

func TestEvalCommand(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "../../examples/devtools.cases.tsv"
	miss := file("miss.tsv", "run the unit tests\trun-tests\nbook a flight to oslo\tsearch-code\n")
	typo := file("typo.tsv", "# a comment\nrun the unit tests\trun-test\n")
	spaces := file("spaces.tsv", "run the unit tests    run-tests\n")
	jsonl := file("c.jsonl", `{"request": "run the unit tests", "expect": "run-tests"}`+"\n"+`{"request": "book a flight", "expect": null}`+"\n")
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"every case passes", []string{"eval", devtools, jsonl}, 0, "2 cases: top-1 100.0% (1/1), top-3 100.0% (1/1), false match 0.0% (0/1)", ""},
		{"a failing case fails the run without bars", []string{"eval", devtools, miss}, 1, "FAIL  " + miss + ":2  book a flight to oslo\n      want search-code (not in the top 3); got no match", ""},
		{"a bar met passes despite the failure", []string{"eval", "--min-top1", "0.5", devtools, miss}, 0, "top-1 50.0% (1/2)", ""},
		{"a bar missed fails", []string{"eval", "--min-top1", "0.6", devtools, miss}, 1, "top-1 50.0% (1/2)", ""},
		{"--failed lists only failures", []string{"eval", "--failed", devtools, miss}, 1, "FAIL", ""},
		{"bundled cases meet CI's bar", []string{"eval", "--min-top1", "0.8", "--max-false", "0.2", devtools, good}, 0, "top-1", ""},
		{"unknown skill names the line and the nearest", []string{"eval", devtools, typo}, 2, "", typo + `:2: no skill named "run-test" in`},
		{"spaces for a tab", []string{"eval", devtools, spaces}, 2, "", spaces + ":1: no tab between the request and the skill"},
		{"a bar out of range", []string{"eval", "--min-top1", "90", devtools, good}, 2, "", "--min-top1 90: give a share from 0 to 1"},
		{"json and junit together", []string{"eval", "--json", "--junit", devtools, good}, 2, "", "pick one"},
		{"missing cases file", []string{"eval", devtools, filepath.Join(dir, "none.tsv")}, 2, "", "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := cli(t, c.args...)
			if code != c.code || !strings.Contains(out, c.stdout) || !strings.Contains(errOut, c.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stdout %q, stderr %q", code, c.code, out, errOut, c.stdout, c.stderr)
			}
		})
	}
	// --failed leaves passing cases out.
	if _, out, _ := cli(t, "eval", "--failed", devtools, miss); strings.Contains(out, "PASS") {
		t.Errorf("--failed printed a passing case:\n%s", out)
	}
}

// TestEvalIsRouteSkill: every case's top matches and tiers are those
// `route` (the route_skill query, router.DefaultLimit) answers, for every
// bundled agent and its cases file.
func TestEvalIsRouteSkill(t *testing.T) {
	for _, a := range []string{"devtools", "oncall", "support", "data", "kefu"} {
		agent, file := "../../examples/"+a+".3md", "../../examples/"+a+".cases.tsv"
		_, out, errOut := cli(t, "eval", "--json", "--no-cache", agent, file)
		var rep cases.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: %v\n%s%s", a, err, out, errOut)
		}
		if len(rep.Results) < 10 {
			t.Errorf("%s: %d cases, want at least 10", a, len(rep.Results))
		}
		for _, r := range rep.Results {
			_, rout, _ := cli(t, "route", "--json", "--no-cache", agent, r.Request)
			var got struct {
				Matches []struct{ Name, Tier string }
			}
			if err := json.Unmarshal([]byte(rout), &got); err != nil {
				t.Fatal(err)
			}
			// eval keeps the first cases.TopK of route's answer.
			if min(len(got.Matches), cases.TopK) != len(r.Matches) {
				t.Errorf("%s %q: eval kept %d matches, route answers %d", a, r.Request, len(r.Matches), len(got.Matches))
				continue
			}
			for i, m := range got.Matches[:len(r.Matches)] {
				if m.Name != r.Matches[i].Name || m.Tier != r.Matches[i].Via {
					t.Errorf("%s %q: match %d is %s/%s in eval, %s/%s in route", a, r.Request, i+1, r.Matches[i].Name, r.Matches[i].Via, m.Name, m.Tier)
				}
			}
		}
	}
}

func TestEvalCompareAndJUnit(t *testing.T) {
	dir := t.TempDir()
	put := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src, err := os.ReadFile(devtools)
	if err != nil {
		t.Fatal(err)
	}
	agent := put("agent.3md", string(src))
	cs := put("c.tsv", "run the unit tests\trun-tests\nwhich packages still import the deprecated logger\tsearch-code\n")
	code, before, _ := cli(t, "eval", "--json", agent, cs)
	if code != 1 {
		t.Fatalf("the second case passes before the fix (exit %d):\n%s", code, before)
	}
	old := put("old.json", before)
	// The author adds the trigger the miss asked for: the change fixes it.
	put("agent.3md", strings.Replace(string(src), `label="search-code" kind=skill triggers="`, `label="search-code" kind=skill triggers="still import, `, 1))
	code, out, _ := cli(t, "eval", "--compare", old, agent, cs)
	if code != 0 || !strings.Contains(out, "fixed   "+cs+":2  which packages still import the deprecated logger  (") || !strings.Contains(out, "1 fixed, 0 broken") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	_, junit, _ := cli(t, "eval", "--junit", agent, cs)
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal([]byte(junit), &suite); err != nil || suite.Tests != 2 || suite.Failures != 0 {
		t.Errorf("junit %+v %v:\n%s", suite, err, junit)
	}
	if code, _, errOut := cli(t, "eval", "--compare", cs, agent, cs); code != 2 || !strings.Contains(errOut, "eval --json") {
		t.Errorf("a cases file as --compare: exit %d, %s", code, errOut)
	}
}

// TestStarterCasesPass: the agent new writes draws no warning, routing
// lints included, and the cases file it writes beside it passes.
func TestStarterCasesPass(t *testing.T) {
	out := filepath.Join(t.TempDir(), "helper.3md")
	if code, stdout, errOut := cli(t, "new", "helper", out); code != 0 || !strings.Contains(stdout, "helper.cases.tsv") {
		t.Fatalf("new: exit %d\n%s%s", code, stdout, errOut)
	}
	if code, stdout, _ := cli(t, "validate", out); code != 0 || !strings.Contains(stdout, "ok (0 errors, 0 warnings)") {
		t.Errorf("validate on the starter: exit %d\n%s", code, stdout)
	}
	if code, stdout, errOut := cli(t, "eval", out, strings.TrimSuffix(out, ".3md")+".cases.tsv"); code != 0 {
		t.Errorf("the starter cases: exit %d\n%s%s", code, stdout, errOut)
	}
}

// TestExamplesLintClean: the bundled agents draw no warning, routing
// lints included.
func TestExamplesLintClean(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.3md")
	if err != nil || len(files) < 5 {
		t.Fatalf("%v, %d examples", err, len(files))
	}
	for _, f := range files {
		_, out, errOut := cli(t, "validate", f)
		want := "ok (0 errors, 0 warnings)"
		if !strings.Contains(out, want) {
			t.Errorf("%s: want %q:\n%s%s", f, want, out, errOut)
		}
	}
}
