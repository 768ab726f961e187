package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// toolTable is the served tools in list order, each declared in a file of
// its own (listskills.go, routeskill.go, getskill.go, resolveskill.go,
// fillskill.go). Descriptions are written for a model: when to call the
// tool, in a sentence or two.
var toolTable = []*toolDef{listSkillsTool, routeSkillTool, getSkillTool, resolveSkillTool, fillSkillTool}

// toolsCallInline reports whether a tools/call is cheap enough to answer
// inline: the tool says (toolDef.inline), and a call that names no tool
// fails validation, which is cheap.
func toolsCallInline(s *server, params map[string]json.RawMessage) bool {
	name, _ := plainString(params["name"])
	t := toolByName(name)
	if t == nil || t.inline == nil {
		return s.smallAgent()
	}
	return t.inline(s, params["arguments"])
}

func toolByName(name string) *toolDef {
	for _, t := range toolTable {
		if t.name == name {
			return t
		}
	}
	return nil
}

type toolsListResult struct {
	modernFields
	Tools []toolJSON `json:"tools"`
}

// toolsList answers tools/list for the call's revision: titles and output
// schemas from 2025-06-18, annotations from 2025-03-26 (docs/protocol.md §1 and §4).
func (s *server) toolsList(ctx context.Context, c *call) (any, error) {
	var p listParams
	if err := bind(c, &p); err != nil {
		return nil, err
	}
	if _, err := pageOf(p.Cursor, "tl1:", "", "tool", len(toolTable), len(toolTable)); err != nil {
		return nil, err
	}
	v, err := c.generation(ctx) // descriptions name the skills and their inputs
	if err != nil {
		return nil, err
	}
	names, inputs := v.descs.get(v.agent)
	out := &toolsListResult{Tools: make([]toolJSON, 0, len(toolTable))}
	for _, t := range toolTable {
		d := t.derived()
		tj := toolJSON{Name: t.name, Description: t.desc, InputSchema: d.input}
		if t.listed != nil {
			t.listed(&tj, names, inputs)
		}
		if c.atLeast(version20250618) {
			tj.Title = t.title
			tj.OutputSchema = d.output
		}
		if c.atLeast(version20250326) {
			tj.Annotations = &toolAnnotations{Title: t.title, ReadOnlyHint: true, IdempotentHint: true}
		}
		out.Tools = append(out.Tools, tj)
	}
	return out, nil
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// quoted is Text encoded as a JSON string, when the tool had it
	// (toolOutcome.quoted); encodeToolResult then copies it.
	quoted []byte
}

type toolCallResult struct {
	modernFields
	Content           []textContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

type toolsCallParams struct {
	Name      string          `json:"name" param:"required" desc:", the tool's name as a string"`
	Arguments json.RawMessage `json:"arguments" kind:"object"`
}

// toolsCall answers tools/call. A malformed call or an unknown tool is a
// JSON-RPC -32602; bad arguments and unknown skills are isError results
// (docs/protocol.md §3, in every revision).
func (s *server) toolsCall(ctx context.Context, c *call) (any, error) {
	var p toolsCallParams
	if err := bind(c, &p); err != nil {
		return nil, err
	}
	name := p.Name
	args := map[string]json.RawMessage{}
	if p.Arguments != nil {
		eachMember(p.Arguments, func(key string, val []byte) { args[key] = val })
	}
	t := toolByName(name)
	if t == nil {
		names := make([]string, len(toolTable))
		for i, t := range toolTable {
			names[i] = t.name
		}
		return nil, errorf(codeInvalidParams, "Unknown tool: %s (tools: %s)", name, strings.Join(names, ", "))
	}
	out, err := s.runTool(withProgressToken(ctx, c.params), c, t, args)
	if err != nil {
		return nil, err
	}
	res, err := s.toolResult(t, out, !out.isError && c.atLeast(version20250618))
	if err != nil {
		return nil, err
	}
	return res, nil
}

// toolResult turns an outcome into the result sent, with structured
// content when the revision has it. The result is encoded here, once, so
// the answer's size is known before it is sent: one that would pass the
// answer bound becomes a tool error saying what to ask instead.
func (s *server) toolResult(t *toolDef, out *toolOutcome, structured bool) (encodedTool, error) {
	if out.isError { // a value or a name echoed whole must not make it long
		out.text = clipError(out.text)
	}
	res := &toolCallResult{Content: make([]textContent, 0, 1+len(out.extra)), IsError: out.isError}
	res.Content = append(res.Content, textContent{Type: "text", Text: out.text, quoted: out.quoted})
	for _, x := range out.extra {
		res.Content = append(res.Content, textContent{Type: "text", Text: x})
	}
	if structured && out.structured != nil {
		switch st := out.structured.(type) {
		case json.RawMessage:
			res.StructuredContent = st
		default:
			// Encoded straight into bytes by the pooled encoder: compact,
			// no HTML escaping, as the rest of the answer.
			b, err := appendEncoded(nil, out.structured)
			if err != nil {
				return encodedTool{}, fmt.Errorf("encoding %s's structured content: %w", t.name, err)
			}
			res.StructuredContent = json.RawMessage(b)
		}
	}
	enc, err := encodeToolResult(res)
	if err != nil {
		return encodedTool{}, fmt.Errorf("encoding %s's answer: %w", t.name, err)
	}
	if size, limit := len(enc.enc), s.maxAnswerBytes(); size > limit {
		msg := fmt.Sprintf("%s's answer would be %d bytes, over this server's %d-byte bound on one answer (--max-answer-bytes)", t.name, size, limit)
		if t.bigHint != nil {
			msg += ": " + t.bigHint(out)
		}
		return encodeToolResult(&toolCallResult{Content: []textContent{{Type: "text", Text: msg}}, IsError: true})
	}
	return enc, nil
}

// encodeToolResult encodes r as compact JSON without HTML escaping, byte
// for byte what encoding/json writes for it (encodetool_test.go), but by
// hand: reflection over the result was a third of a small answer's time,
// and encoding/json would validate and compact the structured content
// again. The structured content is compact JSON already (the pooled
// encoder's output, or written by hand so), and with HTML escaping off
// encoding/json copies such bytes unchanged, so it is spliced in as is.
// Modern results (the 2026-07-28 keys set) are stamped later
// (stampEncoded), so r never carries them here.
func encodeToolResult(r *toolCallResult) (encodedTool, error) {
	if r.modernFields.ResultType != "" || r.Meta != nil || r.TTLMs != nil || r.CacheScope != "" {
		return encodedTool{}, fmt.Errorf("mcp: a tool result reached encoding with its modern keys already set")
	}
	size := 64 + len(r.StructuredContent)
	for _, c := range r.Content {
		if c.quoted != nil {
			size += 32 + len(c.quoted)
		} else {
			size += 32 + len(c.Text) + len(c.Text)/8
		}
	}
	var enc preEncoded
	var buf *[]byte
	if size <= maxPooledToolBuf {
		buf = toolBufs.Get().(*[]byte)
		enc = (*buf)[:0]
	}
	if cap(enc) < size {
		enc = make(preEncoded, 0, size)
	}
	enc = append(enc, `{"content":`...)
	if r.Content == nil {
		enc = append(enc, "null"...)
	} else {
		enc = append(enc, '[')
		for i, c := range r.Content {
			if i > 0 {
				enc = append(enc, ',')
			}
			enc = append(enc, `{"type":`...)
			enc = appendJSONString(enc, c.Type)
			enc = append(enc, `,"text":`...)
			if c.quoted != nil {
				enc = append(enc, c.quoted...)
			} else {
				enc = appendJSONString(enc, c.Text)
			}
			enc = append(enc, '}')
		}
		enc = append(enc, ']')
	}
	if len(r.StructuredContent) > 0 {
		enc = append(enc, `,"structuredContent":`...)
		enc = append(enc, r.StructuredContent...)
	}
	if r.IsError {
		enc = append(enc, `,"isError":true`...)
	}
	return encodedTool{enc: append(enc, '}'), isError: r.IsError, buf: buf}, nil
}

// toolsFeature is the five skill tools (tools.go).
var toolsFeature = &feature{
	name:       "tools",
	capability: "tools",
	settings:   func(s *server) map[string]any { return s.listChanged() },
	methods: map[string]methodSpec{
		methodToolsList: {handle: (*server).toolsList, legacy: true, modern: true, cached: true, inline: inlineLoaded},
		methodToolsCall: {handle: (*server).toolsCall, legacy: true, modern: true, inline: inlineLoaded, cheap: toolsCallInline},
	},
}
