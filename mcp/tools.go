package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/loader"
	"github.com/google/jsonschema-go/jsonschema"
)

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
// hand: reflection over the result measures at a third of a small
// answer's time, and encoding/json would validate and compact the
// structured content again. The structured content is compact JSON already (the pooled
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

// toolDef is one tool as the server holds it: what tools/list says of it
// (name, title, description, and the JSON Schemas derived from its input
// and output types), how tools/call runs it, and whether a call may be
// answered on the reading goroutine or its answers kept. A tool's file
// declares it with newTool; nothing else in the package names a tool.
type toolDef struct {
	name, title, desc string
	// derived returns the schemas and argument table derived from the
	// tool's types, the first call deriving them.
	derived func() *toolSchemas
	// listed, when set, completes the tool's entry of tools/list from the
	// catalog: names is the skill names sentence, inputs each skill's
	// inputs (toolDescs). It must not change t.input in place.
	listed func(tj *toolJSON, names, inputs string)
	// bigHint ends the error sent when the answer out would pass the
	// answer bound: what to ask for instead. Nil for a generic error.
	bigHint func(out *toolOutcome) string
	// inline reports whether a call with these arguments (raw, not yet
	// checked) is cheap enough to answer as it is read, saving the
	// hand-off to a handler goroutine; nil means "while the agent is
	// small" (smallAgent). The connection's scheduler asks it through
	// toolsCallInline.
	inline func(s *server, args json.RawMessage) bool
	// cache says whether an answer may be kept with the generation
	// (cacheKey).
	cache cacheRule
	// run decodes the arguments, which runTool has checked against args,
	// into the input type and calls the tool's handler.
	run func(s *server, ctx context.Context, g *generation, args map[string]json.RawMessage) (*toolOutcome, error)
}

// toolSpec is what a tool's file declares; In is the type its arguments
// decode into. A field's json name is the argument's name, omitempty makes
// it optional, its jsonschema tag is its description; schema adds what a
// Go type cannot say (enums, bounds).
type toolSpec[In any] struct {
	name, title, desc string
	schema            func(props map[string]*jsonschema.Schema)
	listed            func(tj *toolJSON, names, inputs string)
	bigHint           func(out *toolOutcome) string
	inline            func(s *server, args json.RawMessage) bool
	cache             cacheRule
	run               func(s *server, ctx context.Context, g *generation, in *In) (*toolOutcome, error)
}

// cacheRule is whether a tool's answers may be kept with the generation
// that made them (answerCache), for calls whose arguments are small.
type cacheRule uint8

const (
	// cacheNever: every call is answered afresh.
	cacheNever cacheRule = iota
	// cacheAnswers: an answer depends only on the generation and the
	// arguments.
	cacheAnswers
	// cacheBodies: the answer holds skill bodies, kept only for a pinned
	// agent (loader.Agent.Pinned): an agent that follows its file notices
	// an edit when it reads a body, and a kept body would hide the edit.
	cacheBodies
)

// textOnly is the output type of a tool that answers with text alone: it
// declares no outputSchema and sends no structured content.
type textOnly struct{}

// newTool builds a tool's definition from its spec and its input and
// output types. The schemas are derived on first use (toolDef.derived): a
// process that serves no tool call (a CLI command, a server before its
// first tools/list) does not pay for it at start. A type jsonschema-go
// cannot describe is a programming error, met by every test of the tools.
func newTool[In, Out any](spec toolSpec[In]) *toolDef {
	t := &toolDef{name: spec.name, title: spec.title, desc: spec.desc, bigHint: spec.bigHint, inline: spec.inline, listed: spec.listed, cache: spec.cache}
	t.derived = sync.OnceValue(func() *toolSchemas { return deriveSchemas[In, Out](spec) })
	run := spec.run
	t.run = func(s *server, ctx context.Context, g *generation, args map[string]json.RawMessage) (*toolOutcome, error) {
		var v In
		if err := decodeArgs(reflect.ValueOf(&v).Elem(), t.derived().fields, args); err != nil {
			return nil, err
		}
		return run(s, ctx, g, &v)
	}
	return t
}

// decodeArgs decodes checked arguments into the input struct dst; an
// absent or null argument leaves its field zero. A string without escapes
// is its own bytes (the common case, taken without encoding/json).
func decodeArgs(dst reflect.Value, fields []argField, args map[string]json.RawMessage) error {
	for _, f := range fields {
		raw, ok := args[f.name]
		if !ok || string(raw) == "null" {
			continue
		}
		fv := dst.Field(f.index)
		if fv.Kind() == reflect.String {
			if s, plain := plainString(raw); plain {
				fv.SetString(s)
				continue
			}
		}
		if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
			return fmt.Errorf("reading argument %q: %w", f.name, err)
		}
	}
	return nil
}

// toolOutcome is what a tool produced: text for the model (and, rarely,
// further text blocks after it), the same data as structured content, or
// an error the model can act on. structured may be a json.RawMessage the
// tool encoded itself.
type toolOutcome struct {
	text string
	// quoted, when set, is the text already encoded as a JSON string (a
	// tool that writes its text escaped straight from the bodies it
	// joins), and text is not read: a tool may leave it empty.
	quoted     []byte
	chain      []string // resolve_skill: the chain's names, for the too-big hint
	extra      []string
	structured any
	isError    bool
}

// hint is a bigHint that says the same whatever the answer.
func hint(s string) func(*toolOutcome) string {
	return func(*toolOutcome) string { return s }
}

// runTool validates the arguments and runs the tool; argument problems and
// failures the model can act on become isError outcomes. Only a cancelled
// context is returned as an error.
func (s *server) runTool(ctx context.Context, c *call, t *toolDef, args map[string]json.RawMessage) (*toolOutcome, error) {
	if msg := checkArgs(t, args); msg != "" {
		return &toolOutcome{text: msg, isError: true}, nil
	}
	v, err := c.generation(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &toolOutcome{text: fmt.Sprintf("%s failed: the agent file could not be loaded (%v); fix it and restart the server", t.name, s.loadErr), isError: true}, nil
	}
	out, err := t.run(s, ctx, v, args)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var we *wireError
		if errors.As(err, &we) {
			return nil, err
		}
		return &toolOutcome{text: fmt.Sprintf("%s failed: %v", t.name, err), isError: true}, nil
	}
	return out, nil
}

// checkArgs checks arguments against the tool's input schema (args); it returns a
// message naming the first bad argument and why, or "".
func checkArgs(t *toolDef, given map[string]json.RawMessage) string {
	known := map[string]bool{}
	args := t.derived().args
	for _, p := range args {
		known[p.name] = true
	}
	var unknown []string
	for k := range given {
		if !known[k] {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Sprintf("unknown argument %s: %s takes %s", strings.Join(unknown, ", "), t.name, paramList(t))
	}
	for _, p := range args {
		raw, ok := given[p.name]
		if !ok || string(raw) == "null" {
			if p.required {
				return fmt.Sprintf("argument %q is required: %s", p.name, p.desc)
			}
			continue
		}
		if msg := checkKind(p, raw); msg != "" {
			return msg
		}
	}
	return ""
}

// paramList names the tool's arguments in declaration order.
func paramList(t *toolDef) string {
	args := t.derived().args
	if len(args) == 0 {
		return "no arguments"
	}
	names := make([]string, len(args))
	for i, p := range args {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

// checkKind checks one present argument's JSON type, range and enum.
func checkKind(p argSpec, raw json.RawMessage) string {
	got := jsonKind(raw)
	switch p.kind {
	case "integer":
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if got != "number" || err != nil || n < 0 {
			return fmt.Sprintf("argument %q must be a non-negative integer, got %s", p.name, describeJSON(raw))
		}
	case "string":
		if got != "string" {
			return fmt.Sprintf("argument %q must be a string, got %s", p.name, got)
		}
		if len(p.enum) > 0 {
			var v string
			_ = json.Unmarshal(raw, &v)
			for _, e := range p.enum {
				if v == e {
					return ""
				}
			}
			return fmt.Sprintf("argument %q must be one of %s, got %q", p.name, strings.Join(p.enum, ", "), v)
		}
	default:
		if got != p.kind {
			return fmt.Sprintf("argument %q must be an %s, got %s", p.name, p.kind, got)
		}
	}
	return ""
}

// unknownSkill turns a loader error into the model-facing answer: an
// unknown name lists the closest names; anything else is returned.
func (s *server) unknownSkill(v *generation, err error, name string) (*toolOutcome, error) {
	var ue *loader.UnknownSkillError
	if !errors.As(err, &ue) {
		return nil, err
	}
	closest := ue.Closest
	if len(closest) == 0 {
		closest = v.agent.Closest(name, 3)
	}
	msg := "Unknown skill: " + textclip.Bytes(name, 120) // a name is echoed, never a megabyte of it
	if len(closest) > 0 {
		msg += " (closest: " + strings.Join(closest, ", ") + ")"
	}
	msg += `. Argument "name" must be one of the agent's skill names: find it with route_skill, or with list_skills and a query.`
	return &toolOutcome{text: msg, isError: true}, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
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

// inlineSkills is the largest agent whose catalog-wide tool calls
// (list_skills, route_skill) are answered on the reading goroutine: past
// it they take long enough that they should not hold up reading (and
// cancellations). Calls about one skill are cheap at any size.
const inlineSkills = 2000

// smallAgent reports whether the agent in force is at most inlineSkills.
func (s *server) smallAgent() bool { return s.skillCount.Load() <= inlineSkills }

// Tool names: a compatibility contract with the public reference server.
const (
	toolListSkills   = "list_skills"
	toolRouteSkill   = "route_skill"
	toolGetSkill     = "get_skill"
	toolResolveSkill = "resolve_skill"
	toolFillSkill    = "fill_skill"
)

// describeJSON shows a short value in a message.
func describeJSON(raw json.RawMessage) string {
	if len(raw) > 40 {
		return jsonKind(raw)
	}
	return jsonKind(raw) + " " + string(raw)
}

// withProgressToken keeps params._meta.progressToken, when it is a string
// or an integer (what the spec allows), for the handlers that may report
// progress.
func withProgressToken(ctx context.Context, params map[string]json.RawMessage) context.Context {
	tok, ok := decodeMeta(params)["progressToken"]
	if !ok {
		return ctx
	}
	switch jsonKind(tok) {
	case "string":
	case "number":
		var n int64
		if json.Unmarshal(tok, &n) != nil {
			return ctx
		}
	default:
		return ctx
	}
	return context.WithValue(ctx, progressTokenKey{}, tok)
}
