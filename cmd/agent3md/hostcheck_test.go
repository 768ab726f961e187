package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/fakemodel"
)

// hostCase is one host: how it names the server's tools and its own
// resource tools to the model, and what it does to what it hands back.
type hostCase struct {
	name    string
	model   fakemodel.Dialect
	prelude []hostStep // moves before the first MCP call (Claude Code's ToolSearch)
	// tool is the call of the server's tool as this host offers it.
	tool func(server, tool string, in map[string]any) fakemodel.Call
	// listResources and readResource are the host's own resource tools.
	listResources func(server string) fakemodel.Call
	readResource  func(server, uri string) fakemodel.Call
	// resourceText undoes the host's own wrapper around a resource's text,
	// which no server can change (docs/protocol.md §13).
	resourceText func(text string) (string, error)
	// overflow marks an answer the host did not hand over whole.
	overflow []string
	// instructionsIn is where the host put the server's instructions.
	instructionsIn func(t *fakemodel.Turn, server string) string
}

// hostStep is one move of the scripted model, named for the report.
type hostStep struct {
	label string
	step  fakemodel.Step
}

func fixed(label string, c fakemodel.Call) hostStep {
	return hostStep{label, func([]fakemodel.Result) (fakemodel.Call, error) { return c, nil }}
}

// mcpTools are the server's five tools.
var mcpTools = []string{"route_skill", "get_skill", "resolve_skill", "fill_skill", "list_skills"}

// hostScript is the scripted model's part: route the request, then load,
// resolve and fill the winner as it reads it from the route answer, list
// the resources and read the winner's SKILL.md from the list, and list
// the big agent's skills with no arguments.
func hostScript(h *hostCase) []hostStep {
	dev := readmeServer
	route := h.tool(dev, "route_skill", map[string]any{"text": hostRequest})
	list := h.listResources(dev)
	onWinner := func(label string, call func(w string) fakemodel.Call) hostStep {
		return hostStep{label, func(rs []fakemodel.Result) (fakemodel.Call, error) {
			r, ok := resultOf(rs, route)
			if !ok {
				return fakemodel.Call{}, fmt.Errorf("no route_skill result to read the winner from")
			}
			w := routeWinner(r.Text)
			if w == "" {
				return fakemodel.Call{}, fmt.Errorf("route_skill's answer names no skill: %s", textHead(r.Text, 300))
			}
			return call(w), nil
		}}
	}
	steps := append([]hostStep(nil), h.prelude...)
	return append(steps,
		fixed("route_skill", route),
		onWinner("get_skill", func(w string) fakemodel.Call {
			return h.tool(dev, "get_skill", map[string]any{"name": w})
		}),
		onWinner("resolve_skill", func(w string) fakemodel.Call {
			return h.tool(dev, "resolve_skill", map[string]any{"name": w})
		}),
		onWinner("fill_skill", func(w string) fakemodel.Call {
			return h.tool(dev, "fill_skill", map[string]any{"name": w, "values": hostValues})
		}),
		fixed("list resources", list),
		hostStep{"read SKILL.md", func(rs []fakemodel.Result) (fakemodel.Call, error) {
			r, ok := resultOf(rs, list)
			if !ok {
				return fakemodel.Call{}, fmt.Errorf("no resource list to pick a SKILL.md from")
			}
			uri := "skill://" + hostWinner + "/SKILL.md"
			if !strings.Contains(r.Text, uri) {
				return fakemodel.Call{}, fmt.Errorf("the resource list does not name %s: %s", uri, textHead(r.Text, 300))
			}
			return h.readResource(dev, uri), nil
		}},
		fixed("list_skills (1,000 skills)", h.tool(bigServer, "list_skills", map[string]any{})),
	)
}

func script(steps []hostStep) fakemodel.Script {
	s := fakemodel.Script{Final: "done"}
	for _, st := range steps {
		s.Steps = append(s.Steps, st.step)
	}
	return s
}

// resultOf finds the result of a call the script made.
func resultOf(rs []fakemodel.Result, c fakemodel.Call) (fakemodel.Result, bool) {
	for _, r := range rs {
		if r.Call.Name == c.Name && r.Call.Namespace == c.Namespace {
			return r, true
		}
	}
	return fakemodel.Result{}, false
}

// routeWinner reads the first skill of a route answer the way a model
// would, from its text lines ("name  (score …") or, when the host handed
// the structured copy, its JSON ("name":"…"), whichever comes first.
var (
	routeLine = regexp.MustCompile(`(?m)^([A-Za-z0-9._-]+)  \(score `)
	routeJSON = regexp.MustCompile(`"name"\s*:\s*"([^"]+)"`)
)

func routeWinner(text string) string {
	best, at := "", len(text)+1
	for _, re := range []*regexp.Regexp{routeLine, routeJSON} {
		if m := re.FindStringSubmatchIndex(text); m != nil && m[0] < at {
			best, at = text[m[2]:m[3]], m[0]
		}
	}
	return best
}

// runHostScript starts the fake model for h, runs the host through run
// (which returns the host's output and exit) and checks what the model
// was handed. A host that never reached the fake model cannot be driven
// this way: the test skips, showing why.
func runHostScript(t *testing.T, k *hostKit, h *hostCase, run func(url string) (stdout, stderr string, err error)) {
	t.Helper()
	steps := hostScript(h)
	f, err := fakemodel.Start(h.model, script(steps), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, errOut, runErr := run(f.URL)
	if len(f.Requests()) == 0 {
		t.Skipf("%s never called the fake model API at %s, so it cannot be driven offline this way (exit: %v)\nstdout:\n%s\nstderr:\n%s",
			h.name, f.URL, runErr, tail(out, 4000), tail(errOut, 4000))
	}
	if runErr != nil {
		t.Errorf("%s exited with %v\nstdout:\n%s\nstderr:\n%s", h.name, runErr, tail(out, 4000), tail(errOut, 4000))
	}
	if err := f.Err(); err != nil {
		t.Errorf("the scripted model stopped: %v", err)
	}
	turn, ok := f.Last()
	if !ok {
		t.Fatalf("%s sent %d requests but no turn of its agent loop\nstderr:\n%s", h.name, len(f.Requests()), tail(errOut, 4000))
	}
	report(t, h, turn, steps)
	if len(turn.Results) != len(steps) {
		t.Fatalf("%s handed the model %d tool results, want one for each of the %d steps\nstderr:\n%s",
			h.name, len(turn.Results), len(steps), tail(errOut, 4000))
	}
	checkHanded(t, k, h, turn, steps)
	checkOffered(t, k, h, turn)
}

// report logs what the model saw at each step, in bytes, characters
// and as a sample: the before/after record of docs/protocol.md §13.
func report(t *testing.T, h *hostCase, turn *fakemodel.Turn, steps []hostStep) {
	var b strings.Builder
	fmt.Fprintf(&b, "what %s handed the model:\n| step | bytes | chars | sample |\n|---|---|---|---|\n", h.name)
	for i, r := range turn.Results {
		label := "?"
		if i < len(steps) {
			label = steps[i].label
		}
		text := r.Text
		if text == "" { // a tool search: the tools it loaded
			for _, p := range r.Parts {
				text += p.Type + ":" + p.Text + " "
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | `%s` |\n", label, len(r.Text), utf8.RuneCountInString(r.Text), textHead(text, 100))
	}
	t.Log(b.String())
}

// checkHanded holds each tool result the model read to what the server
// answered: bodies as Markdown, every default answer within the inline
// limit, the route winner and the filled command.
func checkHanded(t *testing.T, k *hostKit, h *hostCase, turn *fakemodel.Turn, steps []hostStep) {
	t.Helper()
	got := map[string]fakemodel.Result{}
	for i, s := range steps {
		got[s.label] = turn.Results[i]
	}
	if w := routeWinner(got["route_skill"].Text); w != hostWinner {
		t.Errorf("route_skill: the model read %q as the best skill, want %s:\n%s", w, hostWinner, textHead(got["route_skill"].Text, 400))
	}
	if r := got["get_skill"]; !strings.Contains(r.Text, k.body) {
		t.Errorf("get_skill: the model was not handed the skill's body as Markdown; it read %d characters:\n%s",
			utf8.RuneCountInString(r.Text), textHead(r.Text, 400))
	}
	for name, body := range k.chain {
		if r := got["resolve_skill"]; !strings.Contains(r.Text, "### "+name+"\n"+body) {
			t.Errorf("resolve_skill: the model was not handed %s's body as a Markdown section; it read:\n%s", name, textHead(r.Text, 400))
		}
	}
	if r := got["fill_skill"]; !strings.Contains(r.Text, k.command) {
		t.Errorf("fill_skill: the model was not handed the command %s; it read:\n%s", k.command, textHead(r.Text, 400))
	}
	md, err := h.resourceText(got["read SKILL.md"].Text)
	switch {
	case err != nil:
		t.Errorf("read SKILL.md: %v", err)
	case strings.TrimRight(md, "\n") != k.skillMD:
		t.Errorf("read SKILL.md: the model was not handed the SKILL.md as one Markdown document; it read:\n%s", textHead(md, 400))
	}
	if r := got["list_skills (1,000 skills)"]; !strings.Contains(r.Text, k.bigFirst) {
		t.Errorf("list_skills on %d skills: the answer does not name the first skill %s:\n%s", 1000, k.bigFirst, textHead(r.Text, 400))
	}
	for i, r := range turn.Results[len(h.prelude):] {
		label := steps[len(h.prelude)+i].label
		if n := utf8.RuneCountInString(r.Text); n > hostInlineLimit {
			t.Errorf("%s: the model was handed %d characters, over the %d a default answer may have", label, n, hostInlineLimit)
		}
		for _, m := range h.overflow {
			if strings.Contains(r.Text, m) {
				t.Errorf("%s: %s did not hand the answer over whole (%q):\n%s", label, h.name, m, textHead(r.Text, 400))
			}
		}
		if r.IsError {
			t.Errorf("%s: an error:\n%s", label, textHead(r.Text, 400))
		}
	}
}

// checkOffered: the server's instructions reached the model, and its five
// tools are offered under their names.
func checkOffered(t *testing.T, k *hostKit, h *hostCase, turn *fakemodel.Turn) {
	t.Helper()
	if at := h.instructionsIn(turn, readmeServer); !strings.Contains(at, k.instructions) {
		t.Errorf("the server's instructions did not reach the model where %s puts them:\n%s", h.name, textHead(at, 400))
	}
	for _, name := range mcpTools {
		want := h.tool(readmeServer, name, nil)
		found := false
		for _, tool := range turn.Tools {
			found = found || (tool.Name == want.Name && tool.Namespace == want.Namespace)
		}
		if !found {
			t.Errorf("%s does not offer %s (namespace %q) to the model", h.name, want.Name, want.Namespace)
		}
	}
}

// jsonContents undoes a host's JSON wrapper around resources/read: an
// object whose contents array holds the resource's text.
func jsonContents(text string) (string, error) {
	var v struct {
		Contents []struct {
			URI  string  `json:"uri"`
			Text *string `json:"text"`
		} `json:"contents"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return "", fmt.Errorf("the host's resource answer is not its JSON contents wrapper (%v): %s", err, textHead(text, 300))
	}
	if len(v.Contents) != 1 || v.Contents[0].Text == nil {
		return "", fmt.Errorf("the host's resource answer holds %d contents, want one text: %s", len(v.Contents), textHead(text, 300))
	}
	return *v.Contents[0].Text, nil
}
