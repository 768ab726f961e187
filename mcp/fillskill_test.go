package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// TestFillProblemsAlike: a missing input and a mistyped value come back the
// same way (a result with ready false and the per-input problem, never a
// tool error), and the cost tag or a relaxed match asks for confirmation.
func TestFillProblemsAlike(t *testing.T) {
	s := newServer(&Options{Source: Loaded(openAda(t))})
	cases := []struct {
		name    string
		args    map[string]any
		ready   bool
		problem string // in the structured result
		confirm []string
	}{
		{"missing", map[string]any{"name": "deploy-app"}, false, `"missing":["env"]`, nil},
		{"mistyped", map[string]any{"name": "deploy-app", "values": map[string]any{"env": "x", "hosts": "h1"}}, false, `"invalid":[{"name":"hosts","type":"array"`, nil},
		{"both", map[string]any{"name": "search", "values": map[string]any{"max": "many"}}, false, `"missing":["pattern"],"invalid":[{"name":"max"`, []string{"cost=low"}},
		{"ready", map[string]any{"name": "deploy-app", "values": map[string]any{"env": "x"}}, true, `"missing":[],"invalid":[]`, nil},
		{"relaxed", map[string]any{"name": "commit", "values": map[string]any{"message": "m"}, "tier": "relaxed"}, true, `"missing":[]`, []string{"cost=medium", "relaxed"}},
	}
	for _, c := range cases {
		wire, _ := callTool(t, s, toolFillSkill, c.args)
		var res struct {
			IsError           bool
			Content           []struct{ Text string }
			StructuredContent json.RawMessage
		}
		if err := json.Unmarshal(wire, &res); err != nil {
			t.Fatal(err)
		}
		var st struct {
			Ready          bool
			Confirm        bool
			ConfirmReasons []string
		}
		if err := json.Unmarshal(res.StructuredContent, &st); err != nil {
			t.Fatalf("%s: no structured result: %s", c.name, wire)
		}
		reasons := strings.Join(st.ConfirmReasons, "; ")
		okConfirm := st.Confirm == (len(c.confirm) > 0)
		for _, w := range c.confirm {
			okConfirm = okConfirm && strings.Contains(reasons, w) && strings.Contains(res.Content[0].Text, w)
		}
		if res.IsError || st.Ready != c.ready || !strings.Contains(string(res.StructuredContent), c.problem) || !okConfirm {
			t.Errorf("%s: %s", c.name, wire)
		}
	}
}

// TestFillUnsafeTemplate: a template whose placeholder sits where a value
// could escape its quotes (here inside $(…)) is not filled: the answer is
// ready false, names the placeholder and why in both the text and the
// structured result, and is not a tool error.
func TestFillUnsafeTemplate(t *testing.T) {
	s := newServer(&Options{Source: Loaded(writeAgent(t,
		"@plane z=1 label=\"mail\" triggers=\"send mail\" inputs=\"msg\" tool=\"echo \\\"Subject: $(echo \\\"{msg}\\\" | head -1)\\\"\"\nMail it.\n"))})
	wire, _ := callTool(t, s, toolFillSkill, map[string]any{"name": "mail", "values": map[string]any{"msg": "$(touch /tmp/x)"}})
	var res struct {
		IsError           bool
		Content           []struct{ Text string }
		StructuredContent struct {
			Ready  bool
			Unsafe []struct{ Placeholder, Reason string }
		}
	}
	if err := json.Unmarshal(wire, &res); err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.StructuredContent.Ready || len(res.StructuredContent.Unsafe) != 1 ||
		res.StructuredContent.Unsafe[0].Placeholder != "msg" || !strings.Contains(res.Content[0].Text, "unsafe placeholder {msg}") ||
		strings.Contains(res.Content[0].Text, "touch") {
		t.Errorf("fill of an unsafe template: %s", wire)
	}
}

// lineTier reads a route line's tier: none is a phrase hit, a sure
// match by name or description says its tier, a guess its tier and fit.
var lineTier = regexp.MustCompile(`^\S+  \(score \d+; matched: [^;]*(?:; (name|described)|; (relaxed|runner-up), fit \d+%)?\)$`)

// TestRouteTextMarksRelaxed: the text of route_skill, which is all the
// model reads, marks each relaxed match (a guess that needs the user's
// confirmation) as the router's tier says, and leaves phrase matches in
// the reference's form.
func TestRouteTextMarksRelaxed(t *testing.T) {
	a, err := loader.Open("../examples/devtools.3md", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c := newPipeClient(t, a)
	defer c.close(t)
	c.roundTrip(t, benchInit)
	r, err := router.ForAgent(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	seen := map[string]bool{}
	for i, text := range []string{"run the tests", "the local build keeps failing", "why did the nightly job go red on main", "find where parseConfig is called"} {
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
			"params": map[string]any{"name": toolRouteSkill, "arguments": map[string]any{"text": text}}})
		wire := c.roundTrip(t, string(req))
		var msg struct {
			Result map[string]json.RawMessage
		}
		var content []struct{ Text string }
		if err := json.Unmarshal([]byte(wire), &msg); err != nil || json.Unmarshal(msg.Result["content"], &content) != nil || len(content) != 1 {
			t.Fatalf("%q: %v %s", text, err, wire)
		}
		if _, has := msg.Result["structuredContent"]; has {
			t.Errorf("%q: route_skill answered structured content; it answers with text alone: %s", text, wire)
		}
		lines := strings.Split(content[0].Text, "\n")
		matches, err := r.Route(context.Background(), text, &router.Query{Limit: router.DefaultLimit})
		if err != nil || len(matches) == 0 || len(lines) > len(matches) {
			t.Fatalf("%q: %d lines for %d matches (%v):\n%s", text, len(lines), len(matches), err, content[0].Text)
		}
		// The first line is the router's first match (the server's
		// router may answer before its index is built, without the
		// guesses after a sure one: the later lines' tiers are read
		// from the lines).
		if want := string(router.AppendLine(nil, &matches[0])); lines[0] != want {
			t.Errorf("%q: first line %q, want %q", text, lines[0], want)
		}
		guessed := false
		for _, line := range lines {
			m := lineTier.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%q: line %q ends in no tier the router has", text, line)
				continue
			}
			tier := cmp.Or(m[1], m[2], router.TierPhrase)
			sure := router.Sure(tier)
			if guessed && sure {
				t.Errorf("%q: a sure line after a guess: %q", text, line)
			}
			guessed = guessed || !sure
			seen[tier] = true
		}
	}
	if !seen["relaxed"] || !seen["phrase"] {
		t.Errorf("the requests made tiers %v; the test needs a phrase and a relaxed match", seen)
	}
}

// TestFillDashDashOfAnotherProgram: through fill_skill, a "--" that
// belongs to env or nice, or that is grep -e's argument, ends no options
// of the program that reads the value, so a value starting with "-" comes
// back ready false with a reason naming that program; a value in sh -c's
// code position is refused with the template.
func TestFillDashDashOfAnotherProgram(t *testing.T) {
	s := newServer(&Options{Source: Loaded(writeAgent(t,
		"@plane z=1 label=\"env-py\" triggers=\"env py\" inputs=\"script\" tool=\"env -- python3 {script}\"\nRun.\n",
		"@plane z=2 label=\"nice-py\" triggers=\"nice py\" inputs=\"script\" tool=\"nice -n 10 -- python3 {script}\"\nRun.\n",
		"@plane z=3 label=\"grep-e\" triggers=\"grep e\" inputs=\"file\" tool=\"grep -e -- {file}\"\nRun.\n",
		"@plane z=4 label=\"sh-c\" triggers=\"sh c\" inputs=\"code\" tool=\"sh -c {code}\"\nRun.\n",
		"@plane z=5 label=\"fixed\" triggers=\"fixed\" inputs=\"script\" tool=\"env python3 -- {script}\"\nRun.\n"))})
	for _, c := range []struct {
		skill, input, value string
		ready               bool
		text                []string
	}{
		{"env-py", "script", `-cimport os;os.system("touch /tmp/x")`, false, []string{"invalid value for script (string): starts with \"-\", so python3 could read it as an option", "the -- before it belongs to env, not to python3"}},
		{"nice-py", "script", "-cimport os", false, []string{"so python3 could read it as an option", "the -- before it belongs to nice, not to python3"}},
		{"grep-e", "file", "-V", false, []string{"so grep could read it as an option", "the -- before it is the argument of -e"}},
		{"sh-c", "code", "echo hi", false, []string{"unsafe placeholder {code}: it is the code sh runs"}},
		{"fixed", "script", "-cimport os", true, []string{"command: env python3 -- '-cimport os'\nready: true"}},
	} {
		wire, _ := callTool(t, s, toolFillSkill, map[string]any{"name": c.skill, "values": map[string]any{c.input: c.value}})
		var res struct {
			IsError           bool
			Content           []struct{ Text string }
			StructuredContent struct{ Ready bool }
		}
		if err := json.Unmarshal(wire, &res); err != nil {
			t.Fatal(err)
		}
		ok := !res.IsError && res.StructuredContent.Ready == c.ready && len(res.Content) == 1
		for _, w := range c.text {
			ok = ok && strings.Contains(res.Content[0].Text, w)
		}
		if !ok {
			t.Errorf("%s: %s", c.skill, wire)
		}
	}
}
