package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agent3md/agent3md/loader"
)

// checkAnswer validates one tools/call result of tool against what the
// tool declares: the structured content against its outputSchema, or no
// structured content for a tool that answers with text alone. A tool
// error carries no structured content either.
func checkAnswer(t *testing.T, where string, tool *toolDef, result json.RawMessage) {
	t.Helper()
	var r struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatalf("%s: %v: %.200s", where, err, result)
	}
	switch {
	case r.StructuredContent == nil:
		return
	case tool.derived().outputSchema == nil || r.IsError:
		t.Errorf("%s: %s answered structured content it does not declare (isError %v): %.300s", where, tool.name, r.IsError, r.StructuredContent)
		return
	}
	rs, err := tool.derived().outputSchema.Resolve(nil)
	if err != nil {
		t.Fatalf("%s's output schema does not resolve: %v", tool.name, err)
	}
	var v any
	if err := json.Unmarshal(r.StructuredContent, &v); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("%s: %s's structured content breaks its outputSchema: %v\n%.500s", where, tool.name, err, r.StructuredContent)
	}
}

// TestTranscriptAnswersMatchSchemas checks every tools/call answer of
// every transcript against the tool's declared schema.
func TestTranscriptAnswersMatchSchemas(t *testing.T) {
	files, _ := filepath.Glob("testdata/transcripts/*.txtar")
	checked := map[string]int{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := parseTranscript(data)
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]*toolDef{} // request id -> tool
		for _, s := range tr.steps {
			for _, line := range strings.Split(strings.TrimSpace(string(s.in)), "\n") {
				var req struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
					Params struct {
						Name string `json:"name"`
					} `json:"params"`
				}
				if json.Unmarshal([]byte(line), &req) == nil && req.Method == methodToolsCall && req.ID != nil {
					if tool := toolByName(req.Params.Name); tool != nil {
						calls[string(req.ID)] = tool
					}
				}
			}
			for _, line := range s.want {
				var ans struct {
					ID     json.RawMessage `json:"id"`
					Result json.RawMessage `json:"result"`
				}
				if json.Unmarshal([]byte(line), &ans) != nil || ans.Result == nil {
					continue
				}
				if tool := calls[string(ans.ID)]; tool != nil {
					checkAnswer(t, filepath.Base(file)+" id "+string(ans.ID), tool, ans.Result)
					checked[tool.name]++
				}
			}
		}
	}
	for _, tool := range toolTable {
		if checked[tool.name] == 0 {
			t.Errorf("no transcript answers %s; the check needs one", tool.name)
		}
	}
}

// TestExampleAnswersMatchSchemas calls every tool on every skill of every
// example agent and checks each answer against the tool's schema.
func TestExampleAnswersMatchSchemas(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.3md")
	files = append(files, "testdata/ada.3md", "testdata/many.3md")
	for _, file := range files {
		a, err := loader.Open(file, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := newServer(&Options{Source: Loaded(a)})
		call := func(tool *toolDef, args map[string]any) {
			wire, _ := callTool(t, s, tool.name, args)
			checkAnswer(t, filepath.Base(file)+" "+tool.name, tool, wire)
		}
		call(listSkillsTool, map[string]any{})
		call(listSkillsTool, map[string]any{"limit": 1})
		for _, sk := range a.Skills() {
			call(getSkillTool, map[string]any{"name": sk.Name})
			call(resolveSkillTool, map[string]any{"name": sk.Name})
			call(fillSkillTool, map[string]any{"name": sk.Name})
			call(fillSkillTool, map[string]any{"name": sk.Name, "values": map[string]any{"x": 1}, "tier": "relaxed"})
			call(listSkillsTool, map[string]any{"query": sk.Name})
		}
		a.Close()
	}
}

// TestInputSchemasDerived: each tool's input schema comes from its input
// type, and checkArgs reads the same properties.
func TestInputSchemasDerived(t *testing.T) {
	for _, tool := range toolTable {
		d := tool.derived()
		b, err := json.Marshal(d.input)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: input schema %s: %v", tool.name, b, err)
		}
		if _, err := s.Resolve(nil); err != nil {
			t.Errorf("%s: input schema does not resolve: %v", tool.name, err)
		}
		if len(d.args) != len(s.Properties) {
			t.Errorf("%s: %d arguments checked, %d in the schema", tool.name, len(d.args), len(s.Properties))
		}
		for _, a := range d.args {
			if p := s.Properties[a.name]; p == nil || p.Type != a.kind || p.Description != a.desc {
				t.Errorf("%s: argument %s is %+v, the schema says %+v", tool.name, a.name, a, p)
			}
		}
	}
}

// TestDecodeArgs: checked arguments decode into a tool's input type: a
// plain string as its bytes, an escaped one unescaped, null as absent,
// an integer 0 as given (a *int tells it from absent), an object as the
// bytes sent.
func TestDecodeArgs(t *testing.T) {
	type input struct {
		S string          `json:"s"`
		N *int            `json:"n,omitempty"`
		R json.RawMessage `json:"r,omitempty"`
	}
	zero := 0
	tests := []struct {
		args string
		want input
	}{
		{`{"s":"plain"}`, input{S: "plain"}},
		{`{"s":"a\"b\u00e9\n"}`, input{S: "a\"bé\n"}},
		{`{"s":null,"n":null,"r":null}`, input{}},
		{`{"n":0}`, input{N: &zero}},
		{`{"r":{"a":[1, 2]}}`, input{R: json.RawMessage(`{"a":[1, 2]}`)}},
	}
	fields := argFields(reflect.TypeFor[input]())
	for _, tt := range tests {
		args := map[string]json.RawMessage{}
		eachMember([]byte(tt.args), func(key string, val []byte) { args[key] = val })
		var got input
		if err := decodeArgs(reflect.ValueOf(&got).Elem(), fields, args); err != nil {
			t.Fatalf("%s: %v", tt.args, err)
		}
		if got.S != tt.want.S || (got.N == nil) != (tt.want.N == nil) || (got.N != nil && *got.N != *tt.want.N) || string(got.R) != string(tt.want.R) {
			t.Errorf("%s: decoded %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

// TestToolsDeclareInline: the scheduler asks the tool (toolsCallInline):
// a call about one skill is inline at any size, a route only once the
// index is ready, and a call naming no tool (it fails validation) while
// the agent is small.
func TestToolsDeclareInline(t *testing.T) {
	a, err := loader.Open("testdata/ada.3md", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s := newServer(&Options{Source: Loaded(a)})
	call := func(name string) map[string]json.RawMessage {
		return map[string]json.RawMessage{"name": json.RawMessage(`"` + name + `"`), "arguments": json.RawMessage(`{"text":"commit"}`)}
	}
	for _, tt := range []struct {
		name string
		want bool
	}{
		{toolGetSkill, true},
		{toolFillSkill, true},
		{toolListSkills, true},   // small agent
		{"no_such_tool", true},   // refused at once
		{toolRouteSkill, false},  // no index yet
		{toolResolveSkill, true}, // small agent
	} {
		if got := toolsCallInline(s, call(tt.name)); got != tt.want {
			t.Errorf("%s: inline %v, want %v", tt.name, got, tt.want)
		}
	}
	s.skillCount.Store(inlineSkills + 1)
	if toolsCallInline(s, call(toolListSkills)) || !toolsCallInline(s, call(toolGetSkill)) {
		t.Errorf("past inlineSkills: list_skills must wait for a handler, get_skill stay inline")
	}
}
