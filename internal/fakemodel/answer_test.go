package fakemodel

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// one is a script whose every turn is answered with c.
func one(c Call) Script {
	s := Script{}
	for range 10 {
		s.Steps = append(s.Steps, func([]Result) (Call, error) { return c, nil })
	}
	return s
}

var getCall = Call{Name: "get_skill", Namespace: "mcp__s", Input: map[string]any{"name": "review-diff"}}

// TestAnthropicAnswers: a tool call streams as message_start, a tool_use
// block whose input arrives as one input_json_delta, message_delta with
// stop_reason tool_use and message_stop; unstreamed it is one message.
func TestAnthropicAnswers(t *testing.T) {
	c := Call{Name: "mcp__s__get_skill", Input: map[string]any{"name": "review-diff"}}
	f := start(t, Anthropic, one(c), nil)
	body := readTestdata(t, "anthropic-turn.json")
	_, hdr, out := post(t, f.URL+"/v1/messages?beta=true", body)
	if ct := hdr.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	ev := events(t, out)
	var names []string
	for _, e := range ev {
		names = append(names, e.name)
		if e.data["type"] != e.name {
			t.Errorf("event %s carries type %v", e.name, e.data["type"])
		}
	}
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("events %q, want %q", names, want)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(ev[2].data["delta"].(map[string]any)["partial_json"].(string)), &in); err != nil || !reflect.DeepEqual(in, c.Input) {
		t.Errorf("input_json_delta gives %v (%v), want %v", in, err, c.Input)
	}
	if r := ev[4].data["delta"].(map[string]any)["stop_reason"]; r != "tool_use" {
		t.Errorf("stop_reason %v", r)
	}

	var req map[string]any
	json.Unmarshal(body, &req)
	req["stream"] = false
	b, _ := json.Marshal(req)
	_, _, out = post(t, f.URL+"/v1/messages", b)
	var msg struct {
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, ID, Name string
			Input          map[string]any
		}
	}
	if err := json.Unmarshal(out, &msg); err != nil || msg.StopReason != "tool_use" || len(msg.Content) != 1 ||
		msg.Content[0].Name != c.Name || !reflect.DeepEqual(msg.Content[0].Input, c.Input) {
		t.Errorf("unstreamed answer %s (%v)", out, err)
	}
}

// TestResponsesAnswers: a call in a namespace streams as a function_call
// item naming both, its arguments a JSON string; a call of tool_search,
// when the host offers one, is a client tool_search_call with the
// arguments as an object; the stream ends with response.completed.
func TestResponsesAnswers(t *testing.T) {
	search := Call{Name: "tool_search", Input: map[string]any{"query": "skill"}}
	for _, tt := range []struct {
		name     string
		call     Call
		offer    bool // the request offers a tool_search tool
		wantType string
	}{
		{"namespaced function", getCall, true, "function_call"},
		{"tool search offered", search, true, "tool_search_call"},
		{"tool search not offered", search, false, "function_call"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := start(t, Responses, one(tt.call), nil)
			var req map[string]any
			json.Unmarshal(readTestdata(t, "responses-turn.json"), &req)
			if !tt.offer {
				req["tools"] = req["tools"].([]any)[:1]
			}
			b, _ := json.Marshal(req)
			_, _, out := post(t, f.URL+"/v1/responses", b)
			ev := events(t, out)
			var names []string
			for _, e := range ev {
				names = append(names, e.name)
			}
			want := []string{"response.created", "response.output_item.added", "response.output_item.done", "response.completed"}
			if !reflect.DeepEqual(names, want) {
				t.Fatalf("events %q, want %q", names, want)
			}
			item := ev[2].data["item"].(map[string]any)
			if item["type"] != tt.wantType || item["call_id"] != "call_fake_03" {
				t.Fatalf("item %v, want a %s with call_id call_fake_03", item, tt.wantType)
			}
			var args map[string]any
			switch a := item["arguments"].(type) {
			case string:
				json.Unmarshal([]byte(a), &args)
			case map[string]any:
				args = a
			}
			if tt.wantType == "tool_search_call" && (item["execution"] != "client" || !isObject(item["arguments"])) {
				t.Errorf("tool_search_call %v: want execution client and arguments as an object", item)
			}
			if tt.wantType == "function_call" && !isString(item["arguments"]) {
				t.Errorf("function_call %v: arguments must be a JSON string", item)
			}
			if !reflect.DeepEqual(args, tt.call.Input) || (tt.call.Namespace != "" && item["namespace"] != tt.call.Namespace) {
				t.Errorf("item %v does not carry the call %+v", item, tt.call)
			}
			done := ev[3].data["response"].(map[string]any)
			if done["status"] != "completed" || len(done["output"].([]any)) != 1 {
				t.Errorf("response.completed %v", done)
			}
		})
	}
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }
func isString(v any) bool { _, ok := v.(string); return ok }

// TestGeminiAnswers: streamGenerateContent answers with server-sent events
// of one candidate holding a functionCall; generateContent with JSON.
func TestGeminiAnswers(t *testing.T) {
	c := Call{Name: "mcp_s_get_skill", Input: map[string]any{"name": "review-diff"}}
	f := start(t, Gemini, one(c), nil)
	body := readTestdata(t, "gemini-turn.json")
	check := func(resp map[string]any) {
		t.Helper()
		cand := resp["candidates"].([]any)[0].(map[string]any)
		part := cand["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)
		fc, _ := part["functionCall"].(map[string]any)
		if fc["name"] != c.Name || !reflect.DeepEqual(fc["args"], c.Input) || cand["finishReason"] != "STOP" {
			t.Errorf("candidate %v, want a functionCall of %+v", cand, c)
		}
	}
	_, hdr, out := post(t, f.URL+"/v1beta/models/gemini-test:streamGenerateContent?alt=sse", body)
	ev := events(t, out)
	if len(ev) != 1 || hdr.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream %q: want one data event", out)
	}
	check(ev[0].data)
	_, _, out = post(t, f.URL+"/v1beta/models/gemini-test:generateContent", body)
	var resp map[string]any
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	check(resp)
}

// TestSideRequests: requests that are not turns are recorded and answered
// in the shape the host asked for, and never advance the script.
func TestSideRequests(t *testing.T) {
	for _, tt := range []struct {
		name, method, path, body string
		d                        Dialect
		status                   int
		want                     string // in the answer
	}{
		{"count tokens", "POST", "/v1/messages/count_tokens?beta=true", `{"messages":[{"role":"user","content":"12345678"}]}`, Anthropic, 200, `"input_tokens":`},
		{"messages without tools", "POST", "/v1/messages", `{"messages":[{"role":"user","content":"title?"}]}`, Anthropic, 200, `"text":"ok"`},
		{"anthropic elsewhere", "GET", "/v1/models", "", Anthropic, 404, "not_found_error"},
		{"responses without tools", "POST", "/v1/responses", `{"input":[],"stream":false}`, Responses, 200, `"output_text"`},
		{"responses models", "GET", "/v1/models", "", Responses, 200, `"object":"list"`},
		{"gemini count tokens", "POST", "/v1beta/models/m:countTokens", `{"contents":[]}`, Gemini, 200, `"totalTokens":`},
		{"gemini elsewhere", "POST", "/v1beta/models/m:embedContent", `{}`, Gemini, 404, "NOT_FOUND"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := start(t, tt.d, one(getCall), nil)
			req, _ := http.NewRequest(tt.method, f.URL+tt.path, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b strings.Builder
			buf := make([]byte, 4096)
			for {
				n, err := resp.Body.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			if resp.StatusCode != tt.status || !strings.Contains(b.String(), tt.want) {
				t.Errorf("%d %s, want %d with %s", resp.StatusCode, b.String(), tt.status, tt.want)
			}
			reqs := f.Requests()
			if len(reqs) != 1 || reqs[0].Turn != nil || reqs[0].Path != tt.path || string(reqs[0].Body) != tt.body {
				t.Errorf("recorded %+v, want the side request as sent", reqs)
			}
		})
	}
}

// TestGeminiClassifier: a request asking for JSON gets an instance of its
// schema, so the CLI's routing classifier parses it (its score must be at
// least 1, which its schema says only in words).
func TestGeminiClassifier(t *testing.T) {
	f := start(t, Gemini, Script{}, nil)
	body := `{"contents":[{"role":"user","parts":[{"text":"rate"}]}],"generationConfig":{"responseMimeType":"application/json",
	 "responseJsonSchema":{"type":"OBJECT","properties":{"complexity_reasoning":{"type":"STRING"},"complexity_score":{"type":"INTEGER"},
	 "choice":{"type":"string","enum":["flash","pro"]},"tags":{"type":"ARRAY"},"ok":{"type":"BOOLEAN"},"min":{"type":"number","minimum":5}}}}}`
	_, _, out := post(t, f.URL+"/v1beta/models/flash-lite:generateContent", []byte(body))
	var resp struct {
		Candidates []struct {
			Content struct{ Parts []struct{ Text string } }
		}
	}
	if err := json.Unmarshal(out, &resp); err != nil || len(resp.Candidates) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(resp.Candidates[0].Content.Parts[0].Text), &got); err != nil {
		t.Fatalf("the text is not JSON: %v", err)
	}
	want := map[string]any{"complexity_reasoning": "fake", "complexity_score": 1.0, "choice": "flash", "tags": []any{}, "ok": false, "min": 5.0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("instance %v, want %v", got, want)
	}
}

// TestBadRequests: a turn that is not JSON and a body over the limit are
// refused, and Err says which.
func TestBadRequests(t *testing.T) {
	f := start(t, Anthropic, Script{}, nil)
	if code, _, _ := post(t, f.URL+"/v1/messages", []byte("{not json")); code != 400 {
		t.Errorf("malformed turn: status %d, want 400", code)
	}
	if err := f.Err(); err == nil || !strings.Contains(err.Error(), "/v1/messages: not a Messages request") {
		t.Errorf("Err = %v", err)
	}
	small := start(t, Responses, Script{}, &Options{MaxBodyBytes: 100})
	big := `{"input":[],"pad":"` + strings.Repeat("x", 100) + `"}`
	if code, _, _ := post(t, small.URL+"/v1/responses", []byte(big)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over MaxBodyBytes: status %d, want 413", code)
	}
	if code, _, _ := post(t, small.URL+"/v1/responses", []byte(big[:90]+`"}`)); code == http.StatusRequestEntityTooLarge {
		t.Errorf("a body within MaxBodyBytes was refused")
	}
	if err := small.Err(); err == nil || !strings.Contains(err.Error(), "over 100 bytes") {
		t.Errorf("Err = %v", err)
	}
}

// FuzzTurn: no request body makes a dialect panic.
func FuzzTurn(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.json")
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b)
	}
	f.Add([]byte(`{"tools":[{"type":"namespace","tools":[{"type":"namespace"}]}],"input":[{"type":"function_call","arguments":"\"x\""}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		paths := map[Dialect]string{Anthropic: "/v1/messages", Responses: "/v1/responses", Gemini: "/v1beta/models/m:generateContent"}
		for d, p := range paths {
			req, _ := http.NewRequest("POST", "http://127.0.0.1"+p, nil)
			d.turn(req, body)
		}
	})
}
