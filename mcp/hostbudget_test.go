package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// The answers a model gets without asking for more fit what hosts show
// inline (budget.go, docs/protocol.md §5): list_skills pages to
// hostAnswerChars, resolve_skill leaves out what does not fit and says
// so, errors stay under hostErrorChars.

// hostChars is what a host may show of a tool answer, counted as the
// server counts it: every text block, and the structured copy.
func hostChars(t *testing.T, wire []byte) int {
	t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(wire, &r); err != nil {
		t.Fatal(err)
	}
	n := len(r.StructuredContent)
	for _, c := range r.Content {
		n += len(c.Text)
	}
	return n
}

// TestListSkillsDefaultPageFitsHost walks every default page of large
// synthetic agents: each fits hostAnswerChars, the next skill's entry would
// not have (the page is as full as the budget allows), the pages hold every
// skill once and in order; a call that names a limit gets that many
// skills, bounded by the answer bound alone.
func TestListSkillsDefaultPageFitsHost(t *testing.T) {
	for _, n := range []int{1000, 3000} {
		a := openSynth(t, n)
		s := newServer(&Options{Source: Loaded(a)})
		names := a.SkillNames()
		seen, cursor, pages := 0, "", 0
		for {
			args := map[string]any{}
			if cursor != "" {
				args["cursor"] = cursor
			}
			wire, res := callTool(t, s, toolListSkills, args)
			if res.IsError {
				t.Fatalf("%d skills, page %d: %s", n, pages, res.Content[0].Text)
			}
			if got := hostChars(t, wire); got > hostAnswerChars {
				t.Errorf("%d skills, page %d: a host shows %d characters, over %d", n, pages, got, hostAnswerChars)
			}
			page := res.StructuredContent.Skills
			for i, e := range page {
				var entry struct{ Name string }
				if err := json.Unmarshal(e, &entry); err != nil || entry.Name != names[seen+i] {
					t.Fatalf("%d skills, page %d entry %d is %s, want %s", n, pages, i, e, names[seen+i])
				}
			}
			seen += len(page)
			pages++
			if cursor = res.StructuredContent.NextCursor; cursor == "" {
				break
			}
			// The next page's first entry would have passed the budget:
			// both copies of the array, as add counts them.
			_, next := callTool(t, s, toolListSkills, map[string]any{"cursor": cursor, "limit": 1})
			arr := len(res.Content[0].Text)
			if with := 2 * (arr + len(next.StructuredContent.Skills[0]) + 1); with <= hostAnswerChars-listNoteChars {
				t.Errorf("%d skills, page %d: %d skills in %d characters, and the next one would still fit (%d)", n, pages, len(page), arr, with)
			}
		}
		if seen != n || pages < 2 {
			t.Errorf("%d skills: the default pages held %d skills in %d pages", n, seen, pages)
		}
		wire, res := callTool(t, s, toolListSkills, map[string]any{"limit": defaultListLimit})
		if len(res.StructuredContent.Skills) != defaultListLimit || hostChars(t, wire) <= hostAnswerChars || len(wire) > s.maxAnswerBytes() {
			t.Errorf("%d skills, limit %d: %d skills in %d bytes; want all of them, past the default budget, within the answer bound",
				n, defaultListLimit, len(res.StructuredContent.Skills), len(wire))
		}
	}
}

// TestListSkillsSmallAgentOnePage: an agent that fits gets the whole array
// and nothing else, as from the reference server.
func TestListSkillsSmallAgentOnePage(t *testing.T) {
	a := openAda(t)
	s := newServer(&Options{Source: Loaded(a)})
	_, res := callTool(t, s, toolListSkills, map[string]any{})
	if len(res.Content) != 1 || len(res.StructuredContent.Skills) != a.SkillCount() || res.StructuredContent.NextCursor != "" {
		t.Errorf("ada: %d blocks, %d skills, cursor %q; want one block with all %d", len(res.Content), len(res.StructuredContent.Skills), res.StructuredContent.NextCursor, a.SkillCount())
	}
}

// writeAgent writes an agent file made of the given skill planes (after a
// fixed identity) and opens it.
func writeAgent(t *testing.T, planes ...string) *loader.Agent {
	t.Helper()
	text := "---\n3md: 1.0\ntitle: Budget\nagent: budget\n---\n@plane z=0 label=\"budget\" kind=identity\nIdentity.\n\n" + strings.Join(planes, "\n")
	path := filepath.Join(t.TempDir(), "budget.3md")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := loader.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestListSkillsEntryPastBudget: a skill whose entry alone passes what a
// default page holds is a short tool error naming it and both ways on;
// with a limit it is listed.
func TestListSkillsEntryPastBudget(t *testing.T) {
	triggers := make([]string, 2500)
	for i := range triggers {
		triggers[i] = fmt.Sprintf("phrase %05d", i)
	}
	a := writeAgent(t,
		"@plane z=1 label=\"small\" kind=skill triggers=\"small\"\nSmall.\n",
		"@plane z=2 label=\"huge\" kind=skill triggers=\""+strings.Join(triggers, ", ")+"\"\nHuge.\n",
		"@plane z=3 label=\"after\" kind=skill triggers=\"after\"\nAfter.\n")
	s := newServer(&Options{Source: Loaded(a)})
	_, res := callTool(t, s, toolListSkills, map[string]any{})
	if len(res.StructuredContent.Skills) != 1 || res.StructuredContent.NextCursor == "" {
		t.Fatalf("first page: %d skills, cursor %q; want small alone", len(res.StructuredContent.Skills), res.StructuredContent.NextCursor)
	}
	at := res.StructuredContent.NextCursor
	wire, res := callTool(t, s, toolListSkills, map[string]any{"cursor": at})
	text := res.Content[0].Text
	if !res.IsError || !strings.Contains(text, `skill "huge" alone`) || !strings.Contains(text, at) || len(wire) > hostErrorChars {
		t.Fatalf("the huge entry's page: %.600s", wire)
	}
	after := text[strings.LastIndex(text, "cursor ")+len("cursor "):]
	var next string
	if err := json.Unmarshal([]byte(after), &next); err != nil {
		t.Fatalf("no cursor at the end of %q", text)
	}
	if _, res := callTool(t, s, toolListSkills, map[string]any{"cursor": next}); len(res.StructuredContent.Skills) != 1 || !strings.Contains(string(res.StructuredContent.Skills[0]), `"after"`) {
		t.Errorf("the cursor past the huge entry: %+v", res.StructuredContent)
	}
	if _, res := callTool(t, s, toolListSkills, map[string]any{"cursor": at, "limit": 1}); res.IsError || len(res.StructuredContent.Skills) != 1 {
		t.Errorf("the huge entry with limit 1: %+v", res)
	}
}

// rootChainAgent writes an agent whose skill "root" depends on deps skills,
// each body padded to about size bytes, root's by pad more bytes.
func rootChainAgent(t *testing.T, deps, size, pad int) *loader.Agent {
	t.Helper()
	var links, planes []string
	for i := 1; i <= deps; i++ {
		links = append(links, fmt.Sprintf("[[z=%d]]", i+1))
		planes = append(planes, fmt.Sprintf("@plane z=%d label=\"dep-%02d\" kind=skill triggers=\"dep %d\"\n# Dep %d\n\n%s\n", i+1, i, i, i, strings.Repeat("word ", size/5)))
	}
	root := fmt.Sprintf("@plane z=1 label=\"root\" kind=skill triggers=\"root\"\n# Root\n\nUse %s.\n\n%s\n", strings.Join(links, ", "), strings.Repeat("x", pad))
	return writeAgent(t, append([]string{root}, planes...)...)
}

// chainLen is the length of root's whole chain as resolve_skill's text.
func chainLen(t *testing.T, a *loader.Agent) int {
	t.Helper()
	chain, err := a.Resolve(context.Background(), "root")
	if err != nil {
		t.Fatal(err)
	}
	return len(loader.ChainText(chain))
}

// TestResolveFitsHost: a chain of exactly hostAnswerChars is answered
// whole; one character more and the answer keeps the requested skill and
// the dependencies that fit with the note, names the rest in order, and a
// host sees at most hostAnswerChars.
func TestResolveFitsHost(t *testing.T) {
	const deps, size = 12, 3000
	probe := rootChainAgent(t, deps, size, 1)
	pad := 1 + hostAnswerChars - chainLen(t, probe)
	for _, extra := range []int{0, 1} {
		a := rootChainAgent(t, deps, size, pad+extra)
		if got := chainLen(t, a); got != hostAnswerChars+extra {
			t.Fatalf("the chain is %d characters, want %d", got, hostAnswerChars+extra)
		}
		s := newServer(&Options{Source: Loaded(a)})
		wire, res := callTool(t, s, toolResolveSkill, map[string]any{"name": "root"})
		if res.IsError {
			t.Fatalf("resolve: %s", res.Content[0].Text)
		}
		if got := hostChars(t, wire); got > hostAnswerChars {
			t.Errorf("chain of %d: a host shows %d characters", hostAnswerChars+extra, got)
		}
		shown := strings.Count(res.Content[0].Text, "### ")
		if extra == 0 {
			if shown != deps+1 || len(res.Content) != 1 {
				t.Errorf("a chain of exactly %d characters: %d sections, %d blocks; want it whole", hostAnswerChars, shown, len(res.Content))
			}
			continue
		}
		if shown < 2 || shown > deps || len(res.Content) != 2 {
			t.Fatalf("a chain one character over: %d sections, %d blocks", shown, len(res.Content))
		}
		var left []string
		for i := shown; i <= deps; i++ {
			left = append(left, fmt.Sprintf("dep-%02d", i))
		}
		note := res.Content[1].Text
		if !strings.Contains(note, fmt.Sprintf("%d of the %d skills of this chain, in order: %s.", len(left), deps+1, strings.Join(left, ", "))) || !strings.Contains(note, "get_skill") {
			t.Errorf("note %q; want it to name %v and get_skill", note, left)
		}
		// The page is as full as the budget allows: the next section would
		// not have fit beside the note.
		if next := len(res.Content[0].Text) + len("\n\n### \n") + len(left[0]) + size; next <= hostAnswerChars-resolveNoteChars {
			t.Errorf("%d sections in %d characters; the next (%d) would still fit", shown, len(res.Content[0].Text), next)
		}
	}
}

// TestResolveFirstSkillPastBudget: a requested skill longer than the budget
// is still answered (as get_skill would), its dependencies named.
func TestResolveFirstSkillPastBudget(t *testing.T) {
	a := rootChainAgent(t, 2, 100, hostAnswerChars)
	s := newServer(&Options{Source: Loaded(a)})
	_, res := callTool(t, s, toolResolveSkill, map[string]any{"name": "root"})
	if res.IsError || strings.Count(res.Content[0].Text, "### ") != 1 || len(res.Content) != 2 || !strings.Contains(res.Content[1].Text, "dep-01, dep-02") {
		t.Errorf("%d blocks, error %v: %.200s", len(res.Content), res.IsError, res.Content[len(res.Content)-1].Text)
	}
}

// TestErrorTextsBounded: no error a model or a client reads passes
// hostErrorChars, however long the name, argument or method it echoes.
func TestErrorTextsBounded(t *testing.T) {
	s := newServer(&Options{Source: Loaded(openAda(t))})
	long := strings.Repeat("n", 200_000)
	many := map[string]any{"name": "search"}
	for i := range 5000 {
		many[fmt.Sprintf("unknown-argument-%05d", i)] = 1
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{toolGetSkill, map[string]any{"name": long}},
		{toolGetSkill, many},
		{toolGetSkill, map[string]any{"name": "search", "file": long}},
		{toolFillSkill, map[string]any{"name": long, "values": map[string]any{}}},
		{toolFillSkill, map[string]any{"name": "search", "values": long}},
		{toolListSkills, map[string]any{"cursor": long}},
		{toolListSkills, map[string]any{"query": long}},
		{toolRouteSkill, map[string]any{"text": "x", "mode": long}},
	} {
		_, res := callTool(t, s, tt.tool, tt.args)
		if n := len(res.Content[0].Text); !res.IsError || n > hostErrorChars {
			t.Errorf("%s: isError %v, a text of %d characters", tt.tool, res.IsError, n)
		}
	}
	for _, method := range []string{long, methodToolsCall} {
		params := map[string]json.RawMessage{"name": json.RawMessage(`"` + long + `"`)}
		_, err := s.dispatch(context.Background(), &session{version: version20251125}, method, params)
		line := appendAnswer(nil, json.RawMessage("1"), nil, err)
		if err == nil || len(line) > hostErrorChars+128 || !strings.Contains(string(line), "message cut at 8000 characters") {
			t.Errorf("%.40s: a JSON-RPC error of %d bytes: %.200s", method, len(line), line)
		}
	}
}

// TestRouteFitsHost: a spec-mode route without limit answers every match
// as the reference does, as many as fit hostAnswerChars, with a note
// saying how many there are and to pass limit; limit 0 gets them all.
func TestRouteFitsHost(t *testing.T) {
	// Lines of ~110 characters, every skill a spec-mode match: far more
	// than one default answer holds.
	var b strings.Builder
	b.WriteString("---\n3md: 1.0\ntitle: Long names\n---\n@plane z=0 label=\"id\" kind=identity\nIdentity.\n\n")
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&b, "@plane z=%d label=\"deploy-%s-%04d\" kind=skill triggers=\"run deploy build\"\nBody %d.\n\n", i, strings.Repeat("x", 60), i, i)
	}
	file := filepath.Join(t.TempDir(), "long.3md")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := loader.Open(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s := newServer(&Options{Source: Loaded(a)})
	r, err := router.ForAgent(context.Background(), a, testRouterOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s.firstRouting.publish(r, nil)
	// Every skill's trigger is in it: 600 long lines, far past what a
	// default answer holds.
	text := "run deploy build test report search query"
	all, res := callTool(t, s, toolRouteSkill, map[string]any{"text": text, "mode": "spec", "limit": 0})
	found := strings.Count(res.Content[0].Text, "\n") + 1
	if res.IsError || len(res.Content) != 1 || hostChars(t, all) <= hostAnswerChars {
		t.Fatalf("limit 0: %d matches in %d characters; the test needs more than a default answer holds", found, hostChars(t, all))
	}
	wire, res := callTool(t, s, toolRouteSkill, map[string]any{"text": text, "mode": "spec"})
	kept := strings.Count(res.Content[0].Text, "\n") + 1
	if got := hostChars(t, wire); got > hostAnswerChars || got < hostAnswerChars/2 {
		t.Errorf("no limit: a host shows %d characters; want at most %d, and most of it used", got, hostAnswerChars)
	}
	if len(res.Content) != 2 || !strings.Contains(res.Content[1].Text, fmt.Sprintf("The first %d of %d matches", kept, found)) || !strings.HasPrefix(res.Content[0].Text, strings.SplitN(string(all), "\\n", 2)[0][len(`{"content":[{"type":"text","text":"`):]) {
		t.Errorf("no limit: %d blocks, note %q", len(res.Content), res.Content[len(res.Content)-1].Text)
	}
	_, small := callTool(t, s, toolRouteSkill, map[string]any{"text": "search report"})
	if len(small.Content) != 1 {
		t.Errorf("a default ranked route was cut: %+v", small.Content)
	}
}
