package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/loader"
	"github.com/google/jsonschema-go/jsonschema"
)

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

// argSpec is one tool argument, read from the input schema: its JSON type
// ("string", "integer", "object"), whether it is required, the values it
// may take, and what it is for.
type argSpec struct {
	name, kind, desc string
	required         bool
	enum             []string
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

// argSchemas are the argument types whose schema is not the one
// jsonschema-go infers: a json.RawMessage argument is a JSON object
// (fill_skill's values), read as it was sent.
var argSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Type: "object"},
}

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

// toolSchemas is what a tool's types say, derived once.
type toolSchemas struct {
	// input is the input type's schema as tools/list sends it: the
	// jsonschema-go schema decoded into maps, so it encodes with its keys
	// sorted (toolsList copies what it completes at list time).
	input map[string]any
	// args are the input's properties in declaration order, read by
	// checkArgs; fields are where each decodes to (decodeArgs).
	args   []argSpec
	fields []argField
	// output is the output type's schema (outputSchema, 2025-06-18+) and
	// outputSchema the same before encoding (the schema tests validate
	// answers against it); both nil for a tool that answers with text
	// alone.
	output       json.RawMessage
	outputSchema *jsonschema.Schema
}

// deriveSchemas derives a tool's schemas from its input and output types.
func deriveSchemas[In, Out any](spec toolSpec[In]) *toolSchemas {
	in, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: argSchemas})
	if err != nil {
		panic(fmt.Sprintf("mcp: tool %s's input type: %v", spec.name, err))
	}
	for _, p := range in.Properties {
		// An absent argument and a null one are both "not given": the
		// schema states the type of a given one.
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	if spec.schema != nil {
		spec.schema(in.Properties)
	}
	d := &toolSchemas{input: schemaMap(in), args: argSpecs(in), fields: argFields(reflect.TypeFor[In]())}
	if reflect.TypeFor[Out]() != reflect.TypeFor[textOnly]() {
		out, err := jsonschema.For[Out](nil)
		if err != nil {
			panic(fmt.Sprintf("mcp: tool %s's output type: %v", spec.name, err))
		}
		outputShape(out)
		if d.output, err = json.Marshal(out); err != nil {
			panic(fmt.Sprintf("mcp: tool %s's output schema: %v", spec.name, err))
		}
		d.outputSchema = out
	}
	return d
}

// outputShape states an output schema as clients are told it: arrays the
// tools always send (never null), nullable values as [type, "null"], and
// objects open to members a later release adds.
func outputShape(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		if s.Types[1] == "array" {
			s.Type, s.Types = "array", nil
		} else {
			s.Types = []string{s.Types[1], "null"}
		}
	}
	s.AdditionalProperties = nil
	outputShape(s.Items)
	for _, p := range s.Properties {
		outputShape(p)
	}
}

// schemaMap is s decoded into maps, as tools/list encodes it.
func schemaMap(s *jsonschema.Schema) map[string]any {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcp: encoding an input schema: %v", err))
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(fmt.Sprintf("mcp: decoding an input schema: %v", err))
	}
	return m
}

// withArgDesc is a copy of the input schema m whose argument arg's
// description ends with more; m itself is shared by every tools/list.
func withArgDesc(m map[string]any, arg, more string) map[string]any {
	props := maps.Clone(m["properties"].(map[string]any))
	p := maps.Clone(props[arg].(map[string]any))
	p["description"] = p["description"].(string) + " " + more
	props[arg] = p
	c := maps.Clone(m)
	c["properties"] = props
	return c
}

// argSpecs lists an input schema's properties in declaration order.
func argSpecs(in *jsonschema.Schema) []argSpec {
	specs := make([]argSpec, 0, len(in.PropertyOrder))
	for _, name := range in.PropertyOrder {
		p := in.Properties[name]
		a := argSpec{name: name, kind: p.Type, desc: p.Description, required: slices.Contains(in.Required, name)}
		for _, e := range p.Enum {
			a.enum = append(a.enum, fmt.Sprint(e))
		}
		specs = append(specs, a)
	}
	return specs
}

// argField is where one argument decodes to in the input type.
type argField struct {
	name  string
	index int
}

// argFields maps each field of the input struct t to its argument name.
func argFields(t reflect.Type) []argField {
	var fields []argField
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields = append(fields, argField{name: name, index: i})
		}
	}
	return fields
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

// jsonKind names a raw JSON value's type.
func jsonKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// describeJSON shows a short value in a message.
func describeJSON(raw json.RawMessage) string {
	if len(raw) > 40 {
		return jsonKind(raw)
	}
	return jsonKind(raw) + " " + string(raw)
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
