package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFillProblemsAlike: a missing input and a mistyped value come back the
// same way (a result with ready false and the per-input problem, never a
// tool error), and the cost tag or a relaxed match asks for confirmation.
func TestFillProblemsAlike(t *testing.T) {
	s := newServer(&Options{Agent: openAda(t)})
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
