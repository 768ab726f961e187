package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Anthropic is the Anthropic Messages API (POST /v1/messages, streamed as
// server-sent events or answered as one JSON message; POST
// /v1/messages/count_tokens), as Claude Code uses it.
var Anthropic Dialect = anthropic{}

type anthropic struct{}

// anthropicRequest is the part of a Messages request the fake reads.
type anthropicRequest struct {
	Model    string            `json:"model"`
	System   json.RawMessage   `json:"system"`
	Messages []anthropicMsg    `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
	Stream   bool              `json:"stream"`
}

type anthropicMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string, or blocks
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     map[string]any  `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // tool_result: a string, or blocks
	IsError   bool            `json:"is_error"`
	ToolName  string          `json:"tool_name"` // tool_reference
}

func isMessagesPath(p string) bool {
	return strings.HasSuffix(p, "/v1/messages") || p == "/messages"
}

func (anthropic) turn(r *http.Request, body []byte) (*Turn, error) {
	if r.Method != http.MethodPost || !isMessagesPath(r.URL.Path) {
		return nil, nil
	}
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("not a Messages request: %w", err)
	}
	if len(req.Tools) == 0 {
		return nil, nil // a side request: a title, a summary, a quota check
	}
	t := &Turn{Stream: req.Stream, System: anthropicText(req.System)}
	for _, raw := range req.Tools {
		var tool struct{ Name, Description string }
		json.Unmarshal(raw, &tool)
		t.Tools = append(t.Tools, Tool{Name: tool.Name, Description: tool.Description, Raw: raw})
	}
	calls := map[string]Call{}
	for i, m := range req.Messages {
		blocks, err := anthropicBlocks(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		if m.Role == "system" {
			// Claude Code also sends system text as messages of their
			// own (its server instructions among them).
			t.System += "\n" + anthropicText(m.Content)
			continue
		}
		if text := anthropicText(m.Content); text != "" {
			t.Messages = append(t.Messages, text)
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				calls[b.ID] = Call{Name: b.Name, Input: b.Input}
			case "tool_result":
				res, err := anthropicResult(b)
				if err != nil {
					return nil, fmt.Errorf("messages[%d]: tool_result %s: %w", i, b.ToolUseID, err)
				}
				res.Call = calls[b.ToolUseID]
				t.Results = append(t.Results, res)
			}
		}
	}
	return t, nil
}

// anthropicBlocks reads content that is either a string or blocks.
func anthropicBlocks(raw json.RawMessage) ([]anthropicBlock, error) {
	if len(raw) == 0 || raw[0] == '"' {
		var s string
		json.Unmarshal(raw, &s)
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	err := json.Unmarshal(raw, &blocks)
	return blocks, err
}

// anthropicText is the text of a system prompt or of content.
func anthropicText(raw json.RawMessage) string {
	blocks, _ := anthropicBlocks(raw)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func anthropicResult(b anthropicBlock) (Result, error) {
	res := Result{IsError: b.IsError}
	res.Raw, _ = json.Marshal(b)
	blocks, err := anthropicBlocks(b.Content)
	if err != nil {
		return res, err
	}
	for _, c := range blocks {
		p := Part{Type: c.Type, Text: c.Text}
		if c.Type == "tool_reference" {
			p.Text = c.ToolName
		}
		res.Parts = append(res.Parts, p)
	}
	res.Text = joinText(res.Parts)
	return res, nil
}

// anthropicContent is the assistant's content block for c or final.
func anthropicContent(c *Call, final string, n int) map[string]any {
	if c == nil {
		return map[string]any{"type": "text", "text": final}
	}
	in := c.Input
	if in == nil {
		in = map[string]any{}
	}
	return map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake_%02d", n), "name": c.Name, "input": in}
}

func (anthropic) answer(w http.ResponseWriter, t *Turn, c *Call, final string, n int) {
	block := anthropicContent(c, final, n)
	stop := "end_turn"
	if c != nil {
		stop = "tool_use"
	}
	msg := map[string]any{
		"id": fmt.Sprintf("msg_fake_%02d", n), "type": "message", "role": "assistant", "model": "fake",
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 0},
	}
	if !t.Stream {
		msg["content"] = []any{block}
		msg["stop_reason"] = stop
		msg["usage"] = map[string]any{"input_tokens": 10, "output_tokens": 10}
		writeJSON(w, msg)
		return
	}
	msg["content"] = []any{}
	s := newSSE(w)
	s.event("message_start", map[string]any{"type": "message_start", "message": msg})
	// The block starts empty and its content arrives as one delta: a tool
	// call's arguments as partial JSON, a text as a text delta.
	start := map[string]any{"type": "text", "text": ""}
	delta := map[string]any{"type": "text_delta", "text": final}
	if c != nil {
		args, _ := json.Marshal(block["input"])
		start = map[string]any{"type": "tool_use", "id": block["id"], "name": c.Name, "input": map[string]any{}}
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(args)}
	}
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
	s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

func (a anthropic) side(w http.ResponseWriter, r *http.Request, body []byte) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/count_tokens"):
		// About four bytes a token, the usual rule of thumb.
		writeJSON(w, map[string]any{"input_tokens": len(body)/4 + 1})
	case r.Method == http.MethodPost && isMessagesPath(r.URL.Path):
		var req anthropicRequest
		json.Unmarshal(body, &req)
		a.answer(w, &Turn{Stream: req.Stream}, nil, "ok", 0)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]any{"type": "error",
			"error": map[string]any{"type": "not_found_error", "message": "the fake model serves /v1/messages and /v1/messages/count_tokens"}})
	}
}
