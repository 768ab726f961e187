package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// argSpec is one tool argument, read from the input schema: its JSON type
// ("string", "integer", "object"), whether it is required, the values it
// may take, and what it is for.
type argSpec struct {
	name, kind, desc string
	required         bool
	enum             []string
}

// argSchemas are the argument types whose schema is not the one
// jsonschema-go infers: a json.RawMessage argument is a JSON object
// (fill_skill's values), read as it was sent.
var argSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Type: "object"},
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
