package selftest_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/allocs"
	"github.com/agent3md/agent3md/selftest"
)

func TestMain(m *testing.M) {
	runFakeIfAsked()
	// Every server the tests spawn is this binary in fake-server mode.
	os.Setenv(fakeEnv, "1")
	os.Exit(m.Run())
}

// allChecks is every check Run performs, in order.
var allChecks = []string{
	"legacy/initialize", "legacy/serverInfo", "legacy/capabilities", "legacy/ping",
	"tools/list", "tools/call",
	"resources/list", "resources/read", "prompts/list", "prompts/get",
	"resources/templates", "resources/unknown", "resources/skill-md", "resources/manifest",
	"resources/alias", "resources/prompt-xml", "prompts/missing-argument", "completion/complete",
	"skills/list", "skills/resources", "skills/get", "skills/unknown", "skills/directory-read",
	"contract/agent3md", "tool/list_skills", "tool/route_skill", "tool/get_skill",
	"tool/get_skill-file", "tool/resolve_skill", "tool/fill_skill", "tool/fill_skill-missing",
	"error/unknown-tool", "error/unknown-skill", "error/missing-argument",
	"probe/malformed-json", "probe/object-id", "probe/oversized-line",
	"probe/unknown-method", "probe/notification",
	"exit/eof", "legacy/initialize-2025-03-26",
	"modern/discover", "modern/unsupported-version", "modern/tools-list",
	"modern/resources", "modern/skills",
}

// Groups of checks the expectations below name.
var (
	// skillFeatures check skills served as resources, prompts,
	// completion and the skills extension.
	skillFeatures = []string{"resources/templates", "resources/unknown", "resources/skill-md",
		"resources/manifest", "resources/alias", "resources/prompt-xml", "prompts/missing-argument",
		"completion/complete", "skills/list", "skills/resources", "skills/get", "skills/unknown",
		"skills/directory-read", "modern/resources", "modern/skills"}
	// skillsEntryChecks are the checks that need skills/list's entries.
	skillsEntryChecks = []string{"skills/resources", "skills/get", "skills/directory-read"}
	// resourcesPrompts are skipped by every fake that declares neither
	// resources nor prompts (all but the generic and skills ones).
	resourcesPrompts = append([]string{"resources/list", "resources/read", "prompts/list", "prompts/get"}, skillFeatures...)
	// genericSkips are skipped on the generic fake: it declares
	// resources and prompts, but serves no skills, templates or
	// completion.
	genericSkips = without(skillFeatures, "resources/unknown", "prompts/missing-argument", "modern/resources")
	// skillChecks need the catalog list_skills gives.
	skillChecks = []string{"tool/route_skill", "tool/get_skill", "tool/get_skill-file", "tool/resolve_skill", "tool/fill_skill", "tool/fill_skill-missing"}
	// contractChecks are skipped on a server that is not an agent-3md one.
	contractChecks = append([]string{"contract/agent3md", "tool/list_skills"}, append(skillChecks, "error/unknown-skill")...)
	modernChecks   = []string{"modern/discover", "modern/unsupported-version", "modern/tools-list", "modern/resources", "modern/skills"}
)

// defaultSkips are the checks a variant skips for want of a capability.
// Only vFileIgnored's get_skill declares the optional file argument.
func defaultSkips(variant string) []string {
	var skips []string
	if variant != vFileIgnored {
		skips = []string{"tool/get_skill-file"}
	}
	switch {
	case variant == vGeneric:
		return append(skips, genericSkips...)
	case slices.Contains(skillsVariants, variant) || variant == vSDK:
		return skips
	}
	return append(skips, resourcesPrompts...)
}

// span is the checks from first to last, both included, in run order.
func span(first, last string) []string {
	return allChecks[slices.Index(allChecks, first) : slices.Index(allChecks, last)+1]
}

// join concatenates check lists.
func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// without is all minus the names in drop.
func without(all []string, drop ...string) []string {
	return slices.DeleteFunc(slices.Clone(all), func(n string) bool { return slices.Contains(drop, n) })
}

// fakeCommand is the argv that runs the fake server variant.
func fakeCommand(t *testing.T, variant string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, fakeArg, variant}
}

func TestRunAgainstFakeServers(t *testing.T) {
	tests := []struct {
		name     string
		variant  string
		opts     selftest.Options
		wantFail []string
		wantSkip []string // besides resourcesPrompts, unless the variant is generic
		// wantDetail maps a check to a phrase its detail must hold.
		wantDetail map[string]string
	}{
		{name: "correct server", variant: vOK,
			wantDetail: map[string]string{"contract/agent3md": "agent-3md server", "legacy/initialize": "echoed"}},
		{name: "legacy only", variant: vLegacyOnly, wantSkip: modernChecks},
		{name: "no tools capability", variant: vNoTools,
			wantSkip: join([]string{"tools/list", "tools/call"}, contractChecks,
				[]string{"error/unknown-tool", "error/missing-argument", "modern/tools-list"})},
		{name: "crashes on malformed line", variant: vCrashBadJSON,
			wantFail: []string{"probe/malformed-json"}},
		{name: "wrong error codes", variant: vWrongCodes,
			wantFail: []string{"error/unknown-tool", "probe/unknown-method"}},
		{name: "never exits on EOF", variant: vNoExit,
			opts:     selftest.Options{ExitTimeout: 500 * time.Millisecond},
			wantFail: []string{"exit/eof"}},
		{name: "exits non-zero on EOF", variant: vExitStatus,
			wantFail: []string{"exit/eof"}},
		{name: "get_skill ignores its file argument", variant: vFileIgnored,
			wantFail:   []string{"tool/get_skill-file"},
			wantDetail: map[string]string{"tool/get_skill-file": "answered without isError"}},
		{name: "bad tool output", variant: vBadOutput,
			wantFail: []string{"tool/route_skill", "tool/get_skill", "tool/resolve_skill", "tool/fill_skill"}},
		{name: "answers notifications", variant: vChatty,
			wantFail: []string{"legacy/ping", "probe/notification"}},
		// probe/oversized-line judges a server by its own bound: a line
		// under it is a ping to answer, one over it an error to answer.
		{name: "no line bound", variant: vNoLineBound,
			wantDetail: map[string]string{"probe/oversized-line": "answered as the ping it is (the server's line bound is above 4195328 bytes); connection alive"}},
		{name: "probe line at the server's bound", variant: vOK,
			opts:       selftest.Options{MaxLineBytes: fakeMaxLine},
			wantDetail: map[string]string{"probe/oversized-line": "answered as the ping it is"}},
		{name: "probe line one over the server's bound", variant: vOK,
			opts:       selftest.Options{MaxLineBytes: fakeMaxLine + 1},
			wantDetail: map[string]string{"probe/oversized-line": `error -32600 "line too long" answered; connection alive`}},
		{name: "crashes on an oversized line", variant: vBigCrash,
			wantFail:   []string{"probe/oversized-line"},
			wantDetail: map[string]string{"probe/oversized-line": "server closed stdout before answering"}},
		{name: "answers an oversized line with garbage", variant: vBigGarbage,
			wantFail:   []string{"probe/oversized-line"},
			wantDetail: map[string]string{"probe/oversized-line": "not a JSON-RPC object"}},
		{name: "answers an oversized line for another id", variant: vBigWrongID,
			wantFail:   []string{"probe/oversized-line"},
			wantDetail: map[string]string{"probe/oversized-line": `carries id 99, want null or "selftest-big"`}},
		{name: "answers an oversized ping with no ping result", variant: vBigBadResult,
			wantFail:   []string{"probe/oversized-line"},
			wantDetail: map[string]string{"probe/oversized-line": `answered the ping with "pong"`}},
		{name: "drops an oversized line unanswered", variant: vBigSilent,
			// Long enough for a loaded machine to answer initialize.
			opts:       selftest.Options{Timeout: 2 * time.Second},
			wantFail:   []string{"probe/oversized-line"},
			wantDetail: map[string]string{"probe/oversized-line": "no answer to a 4195328-byte line within 2s"}},
		{name: "hung server", variant: vHang,
			opts:     selftest.Options{Timeout: 300 * time.Millisecond, ExitTimeout: 300 * time.Millisecond},
			wantFail: allChecks},
		{name: "server hangs on tool calls", variant: vHangTools,
			// Long enough for a loaded machine to answer initialize.
			opts: selftest.Options{Timeout: 2 * time.Second},
			// Three timeouts, then the remaining legacy checks give up
			// fast; the modern session never calls a tool.
			wantFail: join([]string{"tools/call", "tool/list_skills"}, span("error/unknown-tool", "legacy/initialize-2025-03-26")),
			wantSkip: skillChecks},
		{name: "body differs from expectation", variant: vOK,
			opts: selftest.Options{
				Expect: func(name string) (string, bool) { return "not the body", name == "docs" },
				ExpectResolve: func(name string) (string, bool) {
					return "### build\n# Build\n\nRun the compiler.", name == "build"
				},
			},
			wantFail: []string{"tool/get_skill"}},
		{name: "resolve differs from expectation", variant: vOK,
			opts: selftest.Options{
				ExpectResolve: func(name string) (string, bool) { return "### deploy\n", name == "deploy" },
			},
			wantFail: []string{"tool/resolve_skill"}},
		{name: "sample of one", variant: vBadOutput, opts: selftest.Options{Sample: 1},
			wantFail:   []string{"tool/route_skill", "tool/resolve_skill", "tool/fill_skill"},
			wantDetail: map[string]string{"tool/get_skill": "sample of 1 of 4 skills"}},
		{name: "sample spread past the first skill", variant: vBadOutput, opts: selftest.Options{Sample: 2},
			wantFail: []string{"tool/route_skill", "tool/get_skill", "tool/resolve_skill", "tool/fill_skill"}},
		{name: "drops params:null like the TypeScript SDK", variant: vDropNull},
		{name: "negotiates 2024-11-05", variant: vOld,
			wantDetail: map[string]string{
				"legacy/initialize":            "negotiated 2024-11-05",
				"legacy/initialize-2025-03-26": "negotiated 2024-11-05",
				"error/missing-argument":       "-32602 (allowed under 2024-11-05)",
			}},
		{name: "not an agent-3md server", variant: vGeneric,
			wantSkip: contractChecks,
			wantDetail: map[string]string{
				"contract/agent3md":        "not an agent-3md server: contract checks skipped",
				"tools/call":               "not called, marked destructive: wipe",
				"resources/list":           "2 resources",
				"prompts/get":              "2 of 2 prompts",
				"prompts/list":             "warning: 2 without a description (greet, plain)",
				"prompts/missing-argument": `greet without "who": error -32602`,
				"resources/unknown":        "error -32002",
				"resources/templates":      "does not offer resources/templates/list",
				"modern/resources":         "2 resources, read mem://a",
				"error/missing-argument":   `get_skill without "skill_name"`,
			}},
		{name: "skills served correctly", variant: vSkills,
			wantDetail: map[string]string{
				"resources/list":        "7 resources, 3 of them skill://<path>/SKILL.md",
				"resources/skill-md":    "3 skills",
				"resources/manifest":    "3 manifests",
				"resources/alias":       "3 aliases",
				"resources/prompt-xml":  "3 skills, each located at a listed SKILL.md",
				"resources/unknown":     "-32002",
				"completion/complete":   `skill://{name}/{+path} name from "deplo": deploy among 1 values`,
				"skills/list":           "3 skills in 3 page(s), 1 with dynamic resources",
				"skills/resources":      "2 skills",
				"skills/directory-read": "3 skill directories",
				"modern/resources":      "7 resources, read skill://deploy/SKILL.md, 1 templates",
				"modern/skills":         "3 skills in 3 page(s)",
			}},
		{name: "skills sampled", variant: vSkills, opts: selftest.Options{Sample: 1},
			wantDetail: map[string]string{
				"resources/skill-md": "1 skills (an evenly spread sample of 1 of 3)",
				"skills/get":         "1 skills (an evenly spread sample of 1 of 3)",
			}},
		{name: "wrong digest and manifest hash", variant: vSkillsDigest,
			wantFail: []string{"resources/manifest", "skills/resources"},
			wantDetail: map[string]string{
				"resources/manifest": "skill://deploy/references/build.md: the manifest hash sha256:",
				"skills/resources":   "skill://deploy/references/build.md: listed digest sha256:",
			}},
		{name: "wrong listed size", variant: vSkillsSize,
			wantFail:   []string{"resources/skill-md"},
			wantDetail: map[string]string{"resources/skill-md": "skill://deploy/SKILL.md: listed size 148, but the text read is 149 UTF-8 bytes"}},
		{name: "listed alias", variant: vSkillsAlias,
			wantFail:   []string{"resources/alias"},
			wantDetail: map[string]string{"resources/alias": "skill://deploy is listed"}},
		{name: "refused alias is a warning", variant: vSkillsNoAlias,
			wantSkip:   []string{"resources/alias"},
			wantDetail: map[string]string{"resources/alias": "warning: 3 skill(s) do not serve the skill://<path> alias"}},
		{name: "skills/list entry split across pages", variant: vSkillsSplit,
			wantFail: []string{"skills/list", "modern/skills"},
			wantSkip: skillsEntryChecks,
			wantDetail: map[string]string{
				"skills/list":   "entry skill://deploy/SKILL.md appears on pages 1 and 2",
				"modern/skills": "appears on pages 1 and 2",
			}},
		{name: "unknown resource answered with empty contents", variant: vSkillsEmpty,
			wantFail: []string{"resources/unknown", "modern/resources"},
			wantDetail: map[string]string{
				"resources/unknown": "answered a result (0 contents); an unknown resource is an error",
				"modern/resources":  "answered a result (0 contents)",
			}},
		{name: "frontmatter without name", variant: vSkillsNoName,
			wantFail:   []string{"resources/skill-md"},
			wantDetail: map[string]string{"resources/skill-md": "skill://docs/SKILL.md: the frontmatter has no name"}},
		{name: "prompt-xml locates an unlisted skill", variant: vSkillsXML,
			wantFail:   []string{"resources/prompt-xml"},
			wantDetail: map[string]string{"resources/prompt-xml": `"docs" has location "skill://ghost/SKILL.md", which is not a listed`}},
		{name: "completion over 100 values", variant: vSkillsMany,
			wantFail:   []string{"completion/complete"},
			wantDetail: map[string]string{"completion/complete": `completing prompt deploy argument "env" from "": 104 values, over the 100 one answer may hold`}},
		{name: "legacy results tagged with resultType", variant: vSkillsLegacyTag,
			wantFail: []string{"resources/templates", "resources/skill-md", "resources/manifest", "resources/alias",
				"resources/prompt-xml", "skills/list"},
			wantSkip:   skillsEntryChecks,
			wantDetail: map[string]string{"skills/list": "skills/list result on a legacy session carries resultType"}},
		{name: "skills served by the Go SDK", variant: vSDK,
			// Long enough for a loaded machine to answer initialize; the
			// SDK leaves a malformed line unanswered, so one request waits
			// it out. The oversized probe is 256 KiB: the SDK parses a
			// 4 MiB line for seconds under -race on a loaded machine.
			opts: selftest.Options{Timeout: 2 * time.Second, MaxLineBytes: 256 << 10},
			// Findings about the SDK (go.mod's version), not the skill
			// checks: no answer to a malformed line, an object id ends
			// the session, and server/discover for an unknown revision
			// is -32601, not -32022. It has no line bound at the probe's
			// size, and answers that ping as a ping.
			wantFail: []string{"probe/malformed-json", "probe/object-id", "modern/unsupported-version"},
			wantSkip: join([]string{"tools/list", "tools/call", "modern/tools-list", "modern/skills"}, contractChecks,
				[]string{"error/unknown-tool", "error/missing-argument", "skills/list", "skills/unknown"}, skillsEntryChecks),
			wantDetail: map[string]string{
				"resources/skill-md":   "3 skills",
				"resources/manifest":   "3 manifests",
				"resources/alias":      "warning: 2 skill(s) do not serve the skill://<path> alias",
				"completion/complete":  "deploy among 1 values",
				"modern/resources":     "each with resultType and cache hints",
				"probe/oversized-line": "answered as the ping it is",
			}},
		{name: "asks the client things", variant: vAsks,
			wantDetail: map[string]string{"exit/eof": "asked roots/list, sampling/createMessage, elicitation/create, ping"}},
		{name: "slow first tool call with progress", variant: vSlowStart,
			opts: selftest.Options{Timeout: time.Second}},
		{name: "agent-3md server lacking a contract tool", variant: vPartial,
			wantFail: []string{"contract/agent3md", "modern/tools-list"},
			wantSkip: []string{"tool/route_skill"},
			wantDetail: map[string]string{
				"contract/agent3md": "lacks route_skill",
				"tool/route_skill":  "does not list route_skill",
			}},
		{name: "list_skills in pages", variant: vPaged,
			wantDetail: map[string]string{"tool/list_skills": "4 skills in 2 page(s)"}},
		{name: "list_skills in the old object shape", variant: vOldShape,
			wantFail:   []string{"tool/list_skills"},
			wantSkip:   skillChecks,
			wantDetail: map[string]string{"tool/list_skills": "top-level JSON array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each run spawns its own servers
			opts := tt.opts
			opts.Command = fakeCommand(t, tt.variant)
			if opts.Timeout == 0 {
				// A hang guard, not a speed bound: the parallel fakes
				// parse 4 MiB probe lines, and under -race on a loaded
				// two-core machine one took over 5 s.
				opts.Timeout = 5 * time.Second
				if allocs.RaceEnabled {
					opts.Timeout = 30 * time.Second
				}
			}
			// A guard against hangs, not a speed assertion.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rep, err := selftest.Run(ctx, &opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var text bytes.Buffer
			rep.WriteText(&text)
			wantSkip := slices.Compact(slices.Sorted(slices.Values(join(tt.wantSkip, defaultSkips(tt.variant)))))
			wantSkip = without(wantSkip, tt.wantFail...)
			checkReport(t, rep, tt.wantFail, wantSkip, text.String())
			for name, phrase := range tt.wantDetail {
				i := slices.IndexFunc(rep.Checks, func(c selftest.Check) bool { return c.Name == name })
				if i < 0 || !strings.Contains(rep.Checks[i].Detail, phrase) {
					t.Errorf("%s: detail lacks %q", name, phrase)
				}
			}
		})
	}
}

// checkReport compares statuses with the expectation: wantFail fail,
// wantSkip skip, every other check passes.
func checkReport(t *testing.T, rep *selftest.Report, wantFail, wantSkip []string, text string) {
	t.Helper()
	checkRun(t, rep, allChecks, wantFail, wantSkip, text)
}

// checkRun is checkReport for a run whose checks are all, in order.
func checkRun(t *testing.T, rep *selftest.Report, allChecks, wantFail, wantSkip []string, text string) {
	t.Helper()
	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name)
		want := selftest.StatusPass
		switch {
		case slices.Contains(wantFail, c.Name):
			want = selftest.StatusFail
		case slices.Contains(wantSkip, c.Name):
			want = selftest.StatusSkip
		}
		if c.Status != want {
			t.Errorf("%s: status %s, want %s (detail: %s)", c.Name, c.Status, want, c.Detail)
		}
		if c.Status != selftest.StatusPass && c.Detail == "" {
			t.Errorf("%s: %s without a detail", c.Name, c.Status)
		}
	}
	if !slices.Equal(names, allChecks) {
		t.Errorf("checks run:\n%q\nwant\n%q", names, allChecks)
	}
	if rep.Failed != len(wantFail) || rep.Skipped != len(wantSkip) || rep.Passed != len(allChecks)-len(wantFail)-len(wantSkip) {
		t.Errorf("counts %d/%d/%d, want %d failed, %d skipped", rep.Passed, rep.Failed, rep.Skipped, len(wantFail), len(wantSkip))
	}
	if rep.OK() != (len(wantFail) == 0) {
		t.Errorf("OK() = %v with %d failures", rep.OK(), rep.Failed)
	}
	t.Logf("report:\n%s", text)
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name    string
		opts    *selftest.Options
		wantErr error
	}{
		{name: "nil options", opts: nil, wantErr: selftest.ErrNoCommand},
		{name: "empty command", opts: &selftest.Options{}, wantErr: selftest.ErrNoCommand},
		{name: "missing binary", opts: &selftest.Options{Command: []string{"/nonexistent/agent3md-selftest-server"}}, wantErr: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := selftest.Run(context.Background(), tt.opts)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Run error = %v, want %v", err, tt.wantErr)
			}
			if rep != nil {
				t.Fatalf("Run returned a report with an error")
			}
		})
	}
}

// TestRunAgainstEcho: a command that copies its input instead of serving
// (selftest --server cat) fails at once with a failure that says so,
// not with our own answer to the echoed request read as the server's.
func TestRunAgainstEcho(t *testing.T) {
	rep, err := selftest.Run(context.Background(), &selftest.Options{Command: fakeCommand(t, vEcho), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Checks) == 0 {
		t.Fatalf("Run against an echo passed: %+v", rep)
	}
	first := rep.Checks[0]
	if first.Name != "legacy/initialize" || first.Status != selftest.StatusFail || !strings.Contains(first.Detail, "sent our initialize request (id 1) back") {
		t.Errorf("first check %s %v %q; want legacy/initialize failing because the request came back", first.Name, first.Status, first.Detail)
	}
	for _, c := range rep.Checks {
		if strings.Contains(c.Detail, "does not offer initialize") {
			t.Errorf("%s read the harness's own answer as the server's: %q", c.Name, c.Detail)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts := &selftest.Options{Command: fakeCommand(t, vOK)}
	rep, err := selftest.Run(ctx, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	if rep == nil || len(rep.Checks) != 0 {
		t.Fatalf("a cancelled Run should return an empty report, got %+v", rep)
	}
}

func TestReportWriters(t *testing.T) {
	rep := &selftest.Report{
		Server: "agent3md mcp x.3md",
		Checks: []selftest.Check{
			{Name: "a", Status: selftest.StatusPass, Detail: "fine", Duration: 1500 * time.Microsecond},
			{Name: "b", Status: selftest.StatusFail, Detail: "broken"},
			{Name: "c", Status: selftest.StatusSkip, Detail: "n/a"},
		},
		Passed: 1, Failed: 1, Skipped: 1,
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	wantLines := []string{
		"selftest: agent3md mcp x.3md",
		"✓ a: fine (2ms)",
		"✗ b: broken (0s)",
		"– c: n/a (0s)",
		"1 passed, 1 failed, 1 skipped",
	}
	if got := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n"); !slices.Equal(got, wantLines) {
		t.Errorf("WriteText:\n%s\nwant\n%s", text.String(), strings.Join(wantLines, "\n"))
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	// The JSON report is an interface other projects' CI reads: its
	// exact shape is pinned, and docs/selftest.md describes it.
	golden := filepath.Join("testdata", "report.json")
	if *update {
		if err := os.WriteFile(golden, js.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestReportWriters -update to create it)", err)
	}
	if !bytes.Equal(js.Bytes(), want) {
		t.Errorf("WriteJSON:\n%s\nwant (%s):\n%s", js.String(), golden, want)
	}
}

// update rewrites golden files.
var update = flag.Bool("update", false, "rewrite testdata golden files")

// TestDocsListEveryCheck keeps docs/selftest.md in step with the checks
// Run performs and the JSON report's fields.
func TestDocsListEveryCheck(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "selftest.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(slices.Concat(allChecks, httpChecks), selftest.JSONSchema,
		`"schema"`, `"server"`, `"transport"`, `"ok"`, `"passed"`, `"failed"`, `"skipped"`, `"checks"`,
		`"name"`, `"status"`, `"detail"`, `"durationMs"`) {
		if !bytes.Contains(doc, []byte("`"+name)) {
			t.Errorf("docs/selftest.md does not mention `%s", name)
		}
	}
}

func ExampleReport_WriteText() {
	rep := &selftest.Report{
		Checks: []selftest.Check{
			{Name: "legacy/ping", Status: selftest.StatusPass, Detail: "ping answered {}"},
			{Name: "exit/eof", Status: selftest.StatusFail, Detail: "still running 5s after its stdin closed"},
			{Name: "modern/discover", Status: selftest.StatusSkip, Detail: "server does not offer 2026-07-28"},
		},
		Passed: 1, Failed: 1, Skipped: 1,
	}
	rep.WriteText(os.Stdout)
	// Output:
	// ✓ legacy/ping: ping answered {} (0s)
	// ✗ exit/eof: still running 5s after its stdin closed (0s)
	// – modern/discover: server does not offer 2026-07-28 (0s)
	// 1 passed, 1 failed, 1 skipped
}

// BenchmarkRun measures a whole selftest against the fake server: three
// spawns, 24 checks, a 4 MiB probe line.
func BenchmarkRun(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	opts := &selftest.Options{Command: []string{exe, fakeArg, vOK}}
	for b.Loop() {
		rep, err := selftest.Run(context.Background(), opts)
		if err != nil || !rep.OK() {
			b.Fatalf("Run: %v, report %+v", err, rep)
		}
	}
}
