package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Responses is the OpenAI Responses API (POST /v1/responses, streamed as
// server-sent events or answered as one JSON response), as Codex CLI uses
// it with a provider whose wire_api is "responses". A tool may sit in a
// namespace tool (Codex offers an MCP server's tools that way); a call
// then names both. When the host offers a client-side tool search (a tool
// of type "tool_search": Codex defers MCP tools behind it for the models
// it knows), a Call named "tool_search" is answered as a tool_search_call
// with Input as its arguments, and the tools the host hands back in its
// tool_search_output count as offered.
var Responses Dialect = responses{}

type responses struct{}

type responsesRequest struct {
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Input        []responsesItem   `json:"input"`
	RawInput     []json.RawMessage `json:"-"`
	Tools        []json.RawMessage `json:"tools"`
	Stream       bool              `json:"stream"`
}

// rawInput is input item i as the host sent it.
func (r *responsesRequest) rawInput(i int) json.RawMessage {
	if i < len(r.RawInput) {
		return r.RawInput[i]
	}
	return nil
}

type responsesItem struct {
	Type      string            `json:"type"`
	Role      string            `json:"role"`
	Content   json.RawMessage   `json:"content"`
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Arguments json.RawMessage   `json:"arguments"` // a JSON string (function_call) or object (tool_search_call)
	CallID    string            `json:"call_id"`
	Output    json.RawMessage   `json:"output"` // a string, or content items
	Tools     []json.RawMessage `json:"tools"`  // tool_search_output: the tools it loaded
}

// toolSearch is the name the fake gives the host's tool search tool.
const toolSearch = "tool_search"

// arguments decodes an item's arguments, a JSON string holding an object
// or the object itself.
func (it responsesItem) arguments() (map[string]any, error) {
	raw := it.Arguments
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = json.RawMessage(s)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	var in map[string]any
	err := json.Unmarshal(raw, &in)
	return in, err
}

type responsesTool struct {
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Tools       []json.RawMessage `json:"tools"` // a namespace's tools
}

func (responses) turn(r *http.Request, body []byte) (*Turn, error) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		return nil, nil
	}
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("not a Responses request: %w", err)
	}
	if len(req.Tools) == 0 {
		return nil, nil
	}
	var raw struct {
		Input []json.RawMessage `json:"input"`
	}
	json.Unmarshal(body, &raw)
	req.RawInput = raw.Input
	t := &Turn{Stream: req.Stream, System: req.Instructions}
	for _, raw := range req.Tools {
		t.Tools = append(t.Tools, responsesTools(raw, "")...)
	}
	for _, it := range req.Input {
		switch {
		case it.Type != "message":
		case it.Role == "system" || it.Role == "developer":
			t.System += "\n" + responsesText(it.Content)
		default:
			t.Messages = append(t.Messages, responsesText(it.Content))
		}
	}
	calls := map[string]Call{}
	for i, it := range req.Input {
		switch it.Type {
		case "function_call", "tool_search_call":
			c := Call{Name: it.Name, Namespace: it.Namespace}
			if it.Type == "tool_search_call" {
				c.Name = toolSearch
			}
			in, err := it.arguments()
			if err != nil {
				return nil, fmt.Errorf("input[%d]: arguments of %s: %w", i, c.Name, err)
			}
			c.Input = in
			calls[it.CallID] = c
		case "function_call_output":
			res := Result{Call: calls[it.CallID], Parts: responsesParts(it.Output), Raw: req.rawInput(i)}
			res.Text = joinText(res.Parts)
			t.Results = append(t.Results, res)
		case "tool_search_output":
			res := Result{Call: calls[it.CallID], Raw: req.rawInput(i)}
			for _, raw := range it.Tools {
				for _, tool := range responsesTools(raw, "") {
					t.Tools = append(t.Tools, tool)
					res.Parts = append(res.Parts, Part{Type: "tool", Text: tool.qualified()})
				}
			}
			t.Results = append(t.Results, res)
		}
	}
	return t, nil
}

// responsesTools flattens a tool, expanding a namespace into its tools.
func responsesTools(raw json.RawMessage, ns string) []Tool {
	var tool responsesTool
	json.Unmarshal(raw, &tool)
	if tool.Type == toolSearch && tool.Name == "" {
		tool.Name = toolSearch
	}
	out := []Tool{{Name: tool.Name, Namespace: ns, Description: tool.Description, Raw: raw}}
	if tool.Type == "namespace" {
		for _, sub := range tool.Tools {
			out = append(out, responsesTools(sub, tool.Name)...)
		}
	}
	return out
}

// responsesParts reads an output or content that is a string or items.
func responsesParts(raw json.RawMessage) []Part {
	if len(raw) == 0 || raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return []Part{{Type: "text", Text: s}}
	}
	var items []struct{ Type, Text string }
	json.Unmarshal(raw, &items)
	var parts []Part
	for _, it := range items {
		typ := it.Type
		if typ == "input_text" || typ == "output_text" {
			typ = "text"
		}
		parts = append(parts, Part{Type: typ, Text: it.Text})
	}
	return parts
}

func responsesText(raw json.RawMessage) string { return joinText(responsesParts(raw)) }

// offersToolSearch reports whether the host offered a tool search tool.
func offersToolSearch(t *Turn) bool {
	for _, tool := range t.Tools {
		var typ struct{ Type string }
		json.Unmarshal(tool.Raw, &typ)
		if typ.Type == toolSearch {
			return true
		}
	}
	return false
}

// responsesOutput is the output item for c or final.
func responsesOutput(t *Turn, c *Call, final string, n int) map[string]any {
	if c == nil {
		return map[string]any{"type": "message", "id": fmt.Sprintf("msg_fake_%02d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": final, "annotations": []any{}}}}
	}
	if c.Name == toolSearch && c.Namespace == "" && offersToolSearch(t) {
		in := c.Input
		if in == nil {
			in = map[string]any{}
		}
		return map[string]any{"type": "tool_search_call", "id": fmt.Sprintf("tsc_fake_%02d", n), "call_id": fmt.Sprintf("call_fake_%02d", n),
			"status": "completed", "execution": "client", "arguments": in}
	}
	args, _ := json.Marshal(c.Input)
	if c.Input == nil {
		args = []byte("{}")
	}
	item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fake_%02d", n), "call_id": fmt.Sprintf("call_fake_%02d", n),
		"name": c.Name, "arguments": string(args), "status": "completed"}
	if c.Namespace != "" {
		item["namespace"] = c.Namespace
	}
	return item
}

func (responses) answer(w http.ResponseWriter, t *Turn, c *Call, final string, n int) {
	item := responsesOutput(t, c, final, n)
	id := fmt.Sprintf("resp_fake_%02d", n)
	usage := map[string]any{"input_tokens": 10, "output_tokens": 10, "total_tokens": 20,
		"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	done := map[string]any{"id": id, "object": "response", "status": "completed", "model": "fake", "output": []any{item}, "usage": usage}
	if !t.Stream {
		writeJSON(w, done)
		return
	}
	s := newSSE(w)
	s.event("response.created", map[string]any{"type": "response.created",
		"response": map[string]any{"id": id, "object": "response", "status": "in_progress", "model": "fake", "output": []any{}}})
	s.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	if c == nil {
		s.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta",
			"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": final})
	}
	s.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	s.event("response.completed", map[string]any{"type": "response.completed", "response": done})
}

func (r responses) side(w http.ResponseWriter, req *http.Request, body []byte) {
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/responses"):
		var rr responsesRequest
		json.Unmarshal(body, &rr)
		r.answer(w, &Turn{Stream: rr.Stream}, nil, "ok", 0)
	case req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"type": "not_found",
			"message": "the fake model serves POST /v1/responses and GET /v1/models"}})
	}
}
