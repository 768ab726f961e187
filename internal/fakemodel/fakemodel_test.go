package fakemodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// start runs a Server for one test.
func start(t *testing.T, d Dialect, s Script, opts *Options) *Server {
	t.Helper()
	f, err := Start(d, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if !strings.HasPrefix(f.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %s: the fake must listen on 127.0.0.1", f.URL)
	}
	return f
}

func post(t *testing.T, url string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// event is one server-sent event.
type event struct {
	name string
	data map[string]any
}

func events(t *testing.T, body []byte) []event {
	t.Helper()
	var out []event
	var cur event
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("event data is not JSON: %v: %s", err, line)
			}
		case line == "":
			if cur.data != nil {
				out = append(out, cur)
			}
			cur = event{}
		}
	}
	return out
}

// TestTurns: each dialect reads a host's request into the same Turn: the
// system text, the messages, the tools (namespaces and tool searches
// flattened) and every tool result with the call it answers.
func TestTurns(t *testing.T) {
	type result struct {
		call, text string
		isError    bool
	}
	for _, tt := range []struct {
		name, path, file string
		d                Dialect
		system           []string // substrings of System
		messages         []string // substrings of Context
		tools            []string // qualified names, in order
		results          []result
	}{
		{"anthropic", "/v1/messages?beta=true", "anthropic-turn.json", Anthropic,
			[]string{"You are a test host.\nBe brief.", "# MCP Server Instructions\n\n## s\nYou are Forge."},
			[]string{"review my changes", "Tool loaded."},
			[]string{"ToolSearch", "mcp__s__get_skill"},
			[]result{{"ToolSearch", "", false}, {"mcp__s__get_skill", "# Review a diff\n\nRead the diff.", false},
				{"mcp__s__get_skill", "Unknown skill: nope\nsee list_skills", true}}},
		{"responses", "/v1/responses", "responses-turn.json", Responses,
			[]string{"You are a coding agent."},
			[]string{"review my changes"},
			[]string{"list_mcp_resources", "tool_search", "", "mcp__s", "mcp__s/get_skill", "mcp__s/route_skill"},
			[]result{{"tool_search", "", false}, {"mcp__s/get_skill", "Wall time: 0.0010 seconds\nOutput:\n# Review a diff\n\nRead the diff.", false},
				{"list_mcp_resources", "first\nsecond", false}}},
		{"gemini", "/v1beta/models/gemini-test:streamGenerateContent?alt=sse", "gemini-turn.json", Gemini,
			[]string{"You are a test CLI."},
			[]string{"---[start of server instructions]---\nYou are Forge.", "review my changes"},
			[]string{"read_mcp_resource", "mcp_s_get_skill"},
			[]result{{"mcp_s_get_skill", "# Review a diff\n\nRead the diff.", false}, {"mcp_s_get_skill", "Unknown skill: nope", true},
				{"read_mcp_resource", "---\nname: x\n---", false}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := start(t, tt.d, Script{}, nil)
			if code, _, body := post(t, f.URL+tt.path, readTestdata(t, tt.file)); code != 200 {
				t.Fatalf("status %d: %s", code, body)
			}
			turn, ok := f.Last()
			if !ok {
				t.Fatalf("no turn recorded; requests: %+v", f.Requests())
			}
			for _, s := range tt.system {
				if !strings.Contains(turn.System, s) {
					t.Errorf("System %q lacks %q", turn.System, s)
				}
			}
			for _, s := range tt.messages {
				if !strings.Contains(turn.Context(), s) {
					t.Errorf("Context lacks %q:\n%s", s, turn.Context())
				}
			}
			var tools []string
			for _, tool := range turn.Tools {
				tools = append(tools, tool.qualified())
			}
			if !reflect.DeepEqual(tools, tt.tools) {
				t.Errorf("tools = %q, want %q", tools, tt.tools)
			}
			var got []result
			for _, r := range turn.Results {
				got = append(got, result{Tool{Name: r.Call.Name, Namespace: r.Call.Namespace}.qualified(), r.Text, r.IsError})
				if len(r.Raw) == 0 || !json.Valid(r.Raw) {
					t.Errorf("result of %s: Raw %q is not the item as sent", r.Call.Name, r.Raw)
				}
			}
			if !reflect.DeepEqual(got, tt.results) {
				t.Errorf("results:\n got %+v\nwant %+v", got, tt.results)
			}
			if err := f.Err(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestStepFollowsConversation: the step played is the number of tool
// results in the conversation, so a retried request gets the same call and
// the same id; the step sees the results; past the last step comes Final.
func TestStepFollowsConversation(t *testing.T) {
	var seen [][]Result
	step := func(name string) Step {
		return func(rs []Result) (Call, error) {
			seen = append(seen, rs)
			return Call{Name: name, Input: map[string]any{"n": len(rs)}}, nil
		}
	}
	f := start(t, Anthropic, Script{Steps: []Step{step("a"), step("b"), step("c"), step("d")}, Final: "all done"}, nil)
	body := readTestdata(t, "anthropic-turn.json") // three results: step 4 ("d")
	var ids []string
	for range 2 {
		_, _, out := post(t, f.URL+"/v1/messages", body)
		ev := events(t, out)
		if len(ev) < 2 {
			t.Fatalf("events: %s", out)
		}
		block := ev[1].data["content_block"].(map[string]any)
		if block["name"] != "d" {
			t.Errorf("answered with %v, want step 4's call d", block["name"])
		}
		ids = append(ids, block["id"].(string))
	}
	if ids[0] != ids[1] || ids[0] != "toolu_fake_03" {
		t.Errorf("call ids %q: a retried turn must get the same id, toolu_fake_03", ids)
	}
	if len(seen) != 2 || len(seen[0]) != 3 || seen[0][1].Text != "# Review a diff\n\nRead the diff." {
		t.Errorf("the step saw %+v, want the three results", seen)
	}
	// One more result than there are steps: the final text.
	var req map[string]any
	json.Unmarshal(body, &req)
	req["stream"] = false
	req["messages"] = append(req["messages"].([]any),
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_fake_03", "name": "d", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_fake_03", "content": "ok"}}})
	b, _ := json.Marshal(req)
	_, _, out := post(t, f.URL+"/v1/messages", b)
	var msg struct {
		StopReason string `json:"stop_reason"`
		Content    []struct{ Type, Text string }
	}
	if err := json.Unmarshal(out, &msg); err != nil || msg.StopReason != "end_turn" || len(msg.Content) != 1 || msg.Content[0].Text != "all done" {
		t.Errorf("after the last step: %s (%v), want the final text", out, err)
	}
	turns := f.Turns()
	if len(turns) != 3 || turns[0].Reply == nil || turns[0].Reply.Name != "d" || turns[2].Reply != nil {
		t.Errorf("recorded turns and replies wrong: %+v", turns)
	}
	if last, _ := f.Last(); len(last.Results) != 4 {
		t.Errorf("Last has %d results, want the longest conversation (4)", len(last.Results))
	}
}

// TestStepError: a step's error ends the script with a final text that
// says so, and Err reports it.
func TestStepError(t *testing.T) {
	boom := errors.New("route named no skill")
	f := start(t, Gemini, Script{Steps: []Step{func([]Result) (Call, error) { return Call{}, boom }}}, nil)
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"x"}]}]}`)
	_, _, out := post(t, f.URL+"/v1beta/models/m:generateContent", body)
	if !strings.Contains(string(out), "script stopped: step 1: route named no skill") {
		t.Errorf("answer %s does not say the script stopped", out)
	}
	if err := f.Err(); !errors.Is(err, boom) {
		t.Errorf("Err = %v, want the step's error", err)
	}
}
