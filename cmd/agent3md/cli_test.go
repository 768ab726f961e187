package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/agent3md/agent3md/router"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cli runs one command line in-process.
func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

const devtools = "../../examples/devtools.3md"

func TestCommands(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.3md")
	if err := os.WriteFile(bad, []byte("---\n3md: 1.0\ntitle: X\n---\n@plane z=0 label=\"oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Its head (frontmatter and identity) is fine; a later plane is not.
	badLater := filepath.Join(dir, "bad-later.3md")
	if err := os.WriteFile(badLater, []byte("---\n3md: 1.0\nagent: b\n---\n@plane z=0 kind=identity\nHi.\n\n@plane z=abc kind=skill\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notAgent := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notAgent, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring expected on stdout
		stderr string // substring expected on stderr
	}{
		{"help", []string{"--help"}, 0, "route -> fill -> run", ""},
		{"subcommand help has example", []string{"route", "--help"}, 0, "agent3md route examples/devtools.3md", ""},
		{"version", []string{"version"}, 0, "agent3md " + version, ""},
		{"unknown command", []string{"frobnicate"}, 2, "", "unknown command"},
		{"unknown flag", []string{"parse", "--nope", devtools}, 2, "", "unknown flag"},
		{"missing argument", []string{"get", devtools}, 2, "", "usage: agent3md get FILE SKILL"},
		{"validate ok", []string{"validate", devtools}, 0, "ok (0 errors, 0 warnings)", ""},
		{"validate invalid", []string{"validate", "../../agentfile/testdata/conformance/agent3md/invalid-cycle.3md"}, 1, "[cycle]", ""},
		{"validate parse failure", []string{"validate", bad}, 1, "[parse]", ""},
		{"validate a directory without skills", []string{"validate", dir}, 2, "", "holds no skill folder"},
		{"validate unreadable", []string{"validate", filepath.Join(dir, "missing.3md")}, 2, "", "missing.3md does not exist"},
		{"parse summary", []string{"parse", devtools}, 0, "axis", ""},
		{"parse json error", []string{"parse", "--json", bad}, 1, `"error": "invalidPlaneDirective"`, ""},
		{"parse line limit names flag", []string{"parse", "--max-line-bytes", "10", devtools}, 1, "", "--max-line-bytes"},
		{"get unknown skill suggests", []string{"get", devtools, "run-test"}, 1, "", "did you mean"},
		{"not a .3md file warns", []string{"skills", notAgent}, 1, "", "warning: " + notAgent + " does not end in .3md"},
		{"a directory without skills", []string{"skills", dir + "/"}, 2, "", "no skill found in"},
		{"route no match exits 1, as grep does", []string{"route", devtools, "zzqx wobble"}, 1, "no skill matched", ""},
		{"route --json no match exits 1", []string{"route", "--json", devtools, "zzqx wobble"}, 1, `"matches": []`, ""},
		{"route spec no match exits 1", []string{"route", "--mode", "spec", devtools, "zzqx wobble"}, 1, "no skill matched", ""},
		{"route names the tier of a name match", []string{"route", "--no-cache", devtools, "tests"}, 0, "run-tests  (score 0; matched: tests; name)", ""},
		{"route bad mode", []string{"route", "--mode", "fuzzy", devtools, "x"}, 2, "", `use "ranked" or "spec"`},
		{"route --explain says why and where", []string{"route", "--no-cache", "--explain", devtools, "the tests are flaky on main"}, 0, "    sure: 1 trigger phrase(s) hit (flaky)\n    flaky             33% of the request  name, description, trigger", ""},
		{"route --explain --json", []string{"route", "--no-cache", "--explain", "--json", devtools, "flaky"}, 0, `"why": "sure: 1 trigger phrase(s) hit (flaky)"`, ""},
		// Issue 30: a request with no sure match says which trigger
		// phrases it came closest to and what it lacked of each.
		{"route without a sure match names the closest triggers", []string{"route", "--no-cache", devtools, "a review please"}, 0, "review-diff  (score 0; matched: review; runner-up", `review-diff: "review my changes" lacks changes; "code review" lacks code`},
		{"route --json without a sure match", []string{"route", "--no-cache", "--json", devtools, "a review please"}, 0, `"closest": [`, ""},
		{"route --explain names the closest triggers", []string{"route", "--no-cache", "--explain", devtools, "a review please"}, 0, `    closest triggers: "review my changes" lacks changes`, ""},
		{"route --explain no match exits 1", []string{"route", "--explain", devtools, "zzqx wobble"}, 1, "no skill matched: no skill's name", ""},
		{"mcp bad file", []string{"mcp", filepath.Join(dir, "missing.3md")}, 2, "", "cannot read agent file"},
		{"mcp broken head", []string{"mcp", bad}, 1, "", "invalidPlaneDirective"},
		{"mcp bad memory limit", []string{"mcp", "--memory-limit", "lots", devtools}, 2, "", "--memory-limit \"lots\": use auto, off"},
		{"mcp broken after the head", []string{"mcp", badLater}, 1, "", `bad-later.3md:8: invalidPlaneDirective: z="abc"`},
		{"run on a broken file", []string{"run", "--skill", "search-code", bad, ""}, 1, "", "invalidPlaneDirective"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := cli(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, out)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errOut)
			}
		})
	}
}

func TestValidateJSONShapes(t *testing.T) {
	_, out, _ := cli(t, "validate", "--json", devtools)
	var one map[string]any
	if err := json.Unmarshal([]byte(out), &one); err != nil {
		t.Fatalf("one file: want an object: %v\n%s", err, out)
	}
	if one["ok"] != true || one["file"] != devtools {
		t.Errorf("unexpected report %v", one)
	}
	_, out, _ = cli(t, "validate", "--json", devtools, "../../examples/oncall.3md")
	var many []map[string]any
	if err := json.Unmarshal([]byte(out), &many); err != nil || len(many) != 2 {
		t.Fatalf("two files: want an array of 2: %v\n%s", err, out)
	}
}

func TestParseJSONMatchesVectorShape(t *testing.T) {
	code, out, errOut := cli(t, "parse", "--json", "../../agentfile/testdata/conformance/agent3md/valid-deps.3md")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Document struct {
			Planes []struct {
				Body string `json:"body"`
			} `json:"planes"`
		} `json:"document"`
		Links []struct {
			SourceZ      float64 `json:"sourceZ"`
			TargetZ      float64 `json:"targetZ"`
			Text         *string `json:"text"`
			TargetExists bool    `json:"targetExists"`
		} `json:"links"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Document.Planes) != 3 || !strings.HasPrefix(got.Document.Planes[1].Body, "# Skill: answer") {
		t.Errorf("planes: %+v", got.Document.Planes)
	}
	if len(got.Links) != 1 || got.Links[0].TargetZ != 2 || got.Links[0].Text == nil || *got.Links[0].Text != "cite" || !got.Links[0].TargetExists {
		t.Errorf("links: %+v", got.Links)
	}
}

func TestNewScaffoldIsValidAndNeverOverwrites(t *testing.T) {
	out := filepath.Join(t.TempDir(), "helper.3md")
	if code, _, errOut := cli(t, "new", "helper", out); code != 0 {
		t.Fatalf("new: exit %d: %s", code, errOut)
	}
	if code, stdout, _ := cli(t, "validate", out); code != 0 || !strings.Contains(stdout, "0 errors, 0 warnings") {
		t.Fatalf("scaffold does not validate cleanly: %s", stdout)
	}
	before, _ := os.ReadFile(out)
	if code, _, errOut := cli(t, "new", "other", out); code != 2 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("overwrite: exit %d: %s", code, errOut)
	}
	after, _ := os.ReadFile(out)
	if !bytes.Equal(before, after) {
		t.Fatal("new overwrote an existing file")
	}
}

// TestNewTarget checks how new reads a lone argument: a plain name gets
// NAME.3md, a path is the file and its base name the agent's name.
func TestNewTarget(t *testing.T) {
	for _, c := range []struct {
		args      []string
		name, out string
	}{
		{[]string{"triage"}, "triage", "triage.3md"},
		{[]string{"my.3md"}, "my", "my.3md"},
		{[]string{"Ops.3MD"}, "Ops", "Ops.3MD"},
		{[]string{"agents/triage.3md"}, "triage", "agents/triage.3md"},
		{[]string{"agents/triage"}, "triage", "agents/triage.3md"},
		{[]string{"release.helper"}, "release.helper", "release.helper.3md"},
		{[]string{"triage", "x/y.3md"}, "triage", "x/y.3md"},
	} {
		name, out, err := newTarget(c.args)
		if err != nil || name != c.name || out != c.out {
			t.Errorf("newTarget(%q) = %q, %q, %v; want %q, %q", c.args, name, out, err, c.name, c.out)
		}
	}
	if _, _, err := newTarget([]string{"agents/"}); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("a directory: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ops.3md")
	if code, _, errOut := cli(t, "new", path); code != 0 {
		t.Fatalf("new %s: exit %d: %s", path, code, errOut)
	}
	if code, stdout, _ := cli(t, "validate", path); code != 0 || !strings.Contains(stdout, "0 errors, 0 warnings") {
		t.Fatalf("new %s does not validate cleanly: %s", path, stdout)
	}
	if data, _ := os.ReadFile(path); !bytes.Contains(data, []byte("\nagent: ops\n")) {
		t.Errorf("new %s: agent not named after the file:\n%.200s", path, data)
	}
}

func TestRouteGetResolveRun(t *testing.T) {
	code, out, errOut := cli(t, "route", "--json", "--no-cache", devtools, "run the unit tests")
	if code != 0 {
		t.Fatalf("route: exit %d: %s", code, errOut)
	}
	var r struct {
		Mode    string `json:"mode"`
		Matches []struct {
			Name string   `json:"name"`
			Hits []string `json:"hits"`
			Tier string   `json:"tier"`
		} `json:"matches"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Mode != "ranked" || len(r.Matches) == 0 {
		t.Fatalf("route json: %v\n%s", err, out)
	}
	top := r.Matches[0].Name
	if code, out, _ := cli(t, "get", devtools, top); code != 0 || !strings.Contains(out, "#") {
		t.Errorf("get %s: exit %d\n%s", top, code, out)
	}
	if code, out, _ := cli(t, "resolve", devtools, top); code != 0 || !strings.HasPrefix(out, "### "+top+"\n") {
		t.Errorf("resolve %s: exit %d\n%s", top, code, out)
	}
}

func TestRunFillsAndExecs(t *testing.T) {
	dir := t.TempDir()
	agent := filepath.Join(dir, "echo.3md")
	src := "---\n3md: 1.0\ntitle: Echo\ntools: printf\n---\n@plane z=0 label=\"echo\" kind=identity\nEcho things.\n\n" +
		"@plane z=1 label=\"say\" kind=skill triggers=\"say, echo\" inputs=\"word, count:number\" tool=\"printf '%s-%s' {word} {count}\"\nSay a word.\n"
	if err := os.WriteFile(agent, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Printing a fill never runs it; missing inputs are reported, exit 82.
	code, out, errOut := cli(t, "run", "--no-cache", agent, "say it", "word=hi")
	if code != exitNotReady || !strings.Contains(errOut, "missing required inputs: count") || !strings.Contains(out, "printf") {
		t.Fatalf("missing: exit %d\n%s\n%s", code, out, errOut)
	}
	// --exec refuses until every required input is filled.
	if code, _, errOut := cli(t, "run", "--exec", "--no-cache", agent, "say it", "word=hi"); code != exitNotReady || !strings.Contains(errOut, "count") {
		t.Fatalf("exec with missing input: exit %d %s", code, errOut)
	}
	// A bad number is a type error, not a command.
	if code, _, errOut := cli(t, "run", "--exec", "--skill", "say", agent, "", "word=hi", "count=many"); code != exitNotReady || !strings.Contains(errOut, "count") {
		t.Fatalf("exec with bad number: exit %d %s", code, errOut)
	}
	code, out, errOut = cli(t, "run", "--exec", "--no-cache", agent, "say it", "word=it's $(x)", "count=3")
	if code != 0 || !strings.Contains(out, "it's $(x)-3") {
		t.Fatalf("exec: exit %d\nstdout: %q\nstderr: %s", code, out, errOut)
	}
}

func TestExportProjectionAndSkillsDir(t *testing.T) {
	code, out, errOut := cli(t, "export", "--bodies", devtools)
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	var p struct {
		Schema string
		Skills []struct {
			Name        string
			Inputs      []string
			InputSchema []struct {
				Name, Type string
				Required   bool
			}
		}
		Bodies map[string]string
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.Schema != "agent3md/1" || len(p.Skills) == 0 || len(p.Bodies) != len(p.Skills) {
		t.Fatalf("projection: schema %q, %d skills, %d bodies", p.Schema, len(p.Skills), len(p.Bodies))
	}
	for _, s := range p.Skills {
		if len(s.Inputs) != len(s.InputSchema) {
			t.Errorf("%s: inputs and inputSchema differ in length", s.Name)
		}
	}
	dir := t.TempDir()
	if code, _, errOut := cli(t, "export", "--skills-dir", dir, devtools); code != 0 {
		t.Fatalf("skills-dir: exit %d: %s", code, errOut)
	}
	mds, _ := filepath.Glob(filepath.Join(dir, "*", "SKILL.md"))
	if len(mds) != len(p.Skills) {
		t.Fatalf("wrote %d SKILL.md files, want %d", len(mds), len(p.Skills))
	}
	for _, md := range mds {
		b, _ := os.ReadFile(md)
		name := filepath.Base(filepath.Dir(md))
		if !bytes.HasPrefix(b, []byte("---\nname: "+name+"\n")) && !bytes.HasPrefix(b, []byte("---\nname: \""+name+"\"\n")) {
			t.Errorf("%s does not start with its name frontmatter:\n%s", md, b[:min(len(b), 80)])
		}
	}
}

// TestMain keeps every command the tests run (and every binary they spawn)
// away from the user's cache directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent3md-cli-cache-")
	if err != nil {
		panic(err)
	}
	// Go's build cache also lives under XDG_CACHE_HOME by default: pin it
	// first, or the interop test's 'go build' would start from nothing.
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
			os.Setenv("GOCACHE", strings.TrimSpace(string(out)))
		}
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestMCPCatalogCache: the second start of the server on the same file
// decodes its catalog from the cache, and says so on stderr.
func TestMCPCatalogCache(t *testing.T) {
	cache := t.TempDir()
	for i, want := range []string{"catalog=scanned", `catalog="from cache"`} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"mcp", "--cache-dir", cache, devtools}, strings.NewReader(""), &out, &errb)
		if code != 0 || !strings.Contains(errb.String(), want) {
			t.Fatalf("start %d: exit %d, stderr lacks %s:\n%s", i+1, code, want, errb.String())
		}
	}
}

// TestRouteDefaultLimit: a ranked route prints the sure matches and the
// relaxed runners-up, router.DefaultLimit lines unless --limit says
// otherwise; spec mode prints every match, as the reference does.
func TestRouteDefaultLimit(t *testing.T) {
	const many = "run the tests, lint, review the diff and explain the code"
	count := func(args ...string) int {
		t.Helper()
		code, out, errOut := cli(t, append([]string{"route", "--no-cache"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		return strings.Count(out, "\n")
	}
	if n := count(devtools, many); n != router.DefaultLimit {
		t.Errorf("ranked, no --limit: %d lines, want %d", n, router.DefaultLimit)
	}
	if n := count("--limit", "0", devtools, many); n <= router.DefaultLimit {
		t.Errorf("ranked --limit 0: %d lines, want more than %d", n, router.DefaultLimit)
	}
	if n := count("--limit", "1", devtools, many); n != 1 {
		t.Errorf("ranked --limit 1: %d lines", n)
	}
	if n, all := count("--mode", "spec", devtools, many), count("--mode", "spec", "--limit", "0", devtools, many); n != all {
		t.Errorf("spec, no --limit: %d lines, want every match (%d)", n, all)
	}
	// A guess says it is one, and its fit.
	_, out, _ := cli(t, "route", "--no-cache", "../../router/testdata/dataops.3md", "the nightly orders DAG failed, can you check what happened")
	if want := "check-pipeline  (score 0; matched: dag, failed, check; relaxed, fit 26%)"; !strings.Contains(out, want) {
		t.Errorf("dataops: %q, want the line %q", out, want)
	}
}
