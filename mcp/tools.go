package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Tool names: a compatibility contract with the public reference server.
const (
	toolListSkills   = "list_skills"
	toolRouteSkill   = "route_skill"
	toolGetSkill     = "get_skill"
	toolResolveSkill = "resolve_skill"
	toolFillSkill    = "fill_skill"
)

// maxSkillNamesBytes bounds the skill names listed in get_skill's
// description.
const maxSkillNamesBytes = 1500

// DefaultMaxAnswerBytes is the default bound on one tool answer
// (Options.MaxAnswerBytes): 4 MiB, well under the 10 MB a TypeScript SDK
// client reads in one line. list_skills pages to stay under it; any other
// tool answer that would pass it becomes a tool error saying what to ask
// for instead.
const DefaultMaxAnswerBytes = 4 << 20

// toolTable is the served tools in list order, each declared in a file of
// its own (listskills.go, routeskill.go, getskill.go, resolveskill.go,
// fillskill.go). Descriptions are written for a model: when to call the
// tool, in a sentence or two.
var toolTable = []*toolDef{listSkillsTool, routeSkillTool, getSkillTool, resolveSkillTool, fillSkillTool}

// inlineSkills is the largest agent whose catalog-wide tool calls
// (list_skills, route_skill) are answered on the reading goroutine: past
// it they take long enough that they should not hold up reading (and
// cancellations). Calls about one skill are cheap at any size.
const inlineSkills = 2000

// smallAgent reports whether the agent in force is at most inlineSkills.
func (s *server) smallAgent() bool { return s.skillCount.Load() <= inlineSkills }

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

type toolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

type toolJSON struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description"`
	InputSchema  map[string]any   `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *toolAnnotations `json:"annotations,omitempty"`
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
		tj := toolJSON{Name: t.name, Description: t.desc, InputSchema: t.input}
		if t.listed != nil {
			t.listed(&tj, names, inputs)
		}
		if c.atLeast(version20250618) {
			tj.Title = t.title
			tj.OutputSchema = t.output
		}
		if c.atLeast(version20250326) {
			tj.Annotations = &toolAnnotations{Title: t.title, ReadOnlyHint: true, IdempotentHint: true}
		}
		out.Tools = append(out.Tools, tj)
	}
	return out, nil
}

func buildSkillNames(skills []string) string {
	if len(skills) == 0 {
		return "This agent has no skills."
	}
	var b strings.Builder
	b.WriteString("Available skills: ")
	shown := 0
	for i, name := range skills {
		sep := ""
		if i > 0 {
			sep = ", "
		}
		if b.Len()+len(sep)+len(name) > maxSkillNamesBytes {
			break
		}
		b.WriteString(sep + name)
		shown++
	}
	if shown < len(skills) {
		fmt.Fprintf(&b, " … and %d more: find one with route_skill, or with list_skills and a query.", len(skills)-shown)
	} else {
		b.WriteString(".")
	}
	return b.String()
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

// encodedTool is a tools/call result encoded once, as appendAnswer would
// encode the toolCallResult it comes from; isError is kept so the answer
// cache can still refuse tool errors.
type encodedTool struct {
	enc     preEncoded
	isError bool
	// buf, when set, is the toolBufs entry enc was encoded into: the
	// stdio connection returns it once the answer line is copied out
	// (putAnswer). Anything else that keeps an encodedTool (the answer
	// cache keeps enc itself, and returns that instead) simply leaves the
	// buffer to the collector.
	buf *[]byte
}

// toolBufs recycles the buffers tool results are encoded into. A route's
// answer is a few KB that lives only until its line is copied to the
// output; allocating it per request was over half of the bytes a
// small agent's route allocated, and the collections they cost.
var toolBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledToolBuf keeps a large answer's buffer out of the pool.
const maxPooledToolBuf = 64 << 10

// releaseTool returns a pooled result's buffer once nothing reads it.
func releaseTool(t encodedTool) {
	if t.buf != nil && cap(t.enc) <= maxPooledToolBuf {
		*t.buf = t.enc[:0]
		toolBufs.Put(t.buf)
	}
}

// MarshalJSON returns the encoded result, so an encodedTool marshals as
// the toolCallResult it stands for (appendAnswer copies t.enc directly).
func (t encodedTool) MarshalJSON() ([]byte, error) { return t.enc, nil }

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

// encodedStringLen bounds the length of b, text encoding/json wrote itself
// (no control bytes, valid UTF-8, U+2028 and U+2029 already escaped),
// encoded again as a JSON string with HTML escaping on, quotes included.
func encodedStringLen(b []byte) int {
	n := 2 + len(b)
	for _, c := range b {
		switch c {
		case '"', '\\':
			n++
		case '<', '>', '&':
			n += 5
		}
	}
	return n
}

// maxAnswerBytes is the bound on one tool answer.
func (s *server) maxAnswerBytes() int {
	if s.opts.MaxAnswerBytes > 0 {
		return s.opts.MaxAnswerBytes
	}
	return DefaultMaxAnswerBytes
}
