package selftest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
)

// maxGenericCalls caps how many listed tools the tools/call check calls.
const maxGenericCalls = 64

// maxSchemaDepth bounds how deep argsFromSchema follows nested schemas.
const maxSchemaDepth = 8

// firstArgErrorRev is the first revision whose tools report arguments
// that break the input schema as an isError result; earlier revisions
// called them a protocol error (-32602).
const firstArgErrorRev = "2025-11-25"

// destructive reports whether a tool says it may destroy something, in
// which case the harness does not call it.
func destructive(t toolDef) bool {
	a := t.Annotations
	if a == nil || a.DestructiveHint == nil || !*a.DestructiveHint {
		return false
	}
	return a.ReadOnlyHint == nil || !*a.ReadOnlyHint
}

// checkCallEach calls every listed tool once with arguments built from
// its input schema and checks the answer is a well-formed CallToolResult
// (an isError result is fine: the arguments are made up) or -32602.
func (r *runner) checkCallEach() outcome {
	c, out, ok := r.needTools("")
	if !ok {
		return out
	}
	if r.toolOrder == nil {
		return skip("needs the tool list, which tools/list did not give")
	}
	if len(r.toolOrder) == 0 {
		return skip("server lists no tools")
	}
	var problems, spared []string
	called := 0
	for _, t := range r.toolOrder[:min(len(r.toolOrder), maxGenericCalls)] {
		if destructive(t) {
			spared = append(spared, t.Name)
			continue
		}
		args, err := argsFromSchema(t.InputSchema)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", t.Name, err))
			continue
		}
		res, rerr, err := r.callTool(c, t.Name, args)
		if err != nil {
			return fail("%s: %v (after %d calls)", t.Name, err, called)
		}
		called++
		if p := judgeCall(t, res, rerr); p != "" {
			problems = append(problems, t.Name+": "+p)
		}
	}
	note := ""
	if len(spared) > 0 {
		note = fmt.Sprintf("; not called, marked destructive: %s", orNone(spared))
	}
	if len(r.toolOrder) > maxGenericCalls {
		note += fmt.Sprintf("; the first %d of %d tools", maxGenericCalls, len(r.toolOrder))
	}
	if len(problems) > 0 {
		return fail("%s%s", firstProblems(problems), note)
	}
	if called == 0 {
		return skip("no tool could be called%s", note)
	}
	return pass("%d tools answered arguments built from their input schemas%s", called, note)
}

// judgeCall says what is wrong with one generic tool call's answer, or "".
func judgeCall(t toolDef, res *toolResult, rerr *rpcError) string {
	if rerr != nil {
		if rerr.Code == codeInvalidParams {
			return ""
		}
		return fmt.Sprintf("answered %v to arguments that satisfy its input schema; a failing tool returns a result with isError:true", rerr)
	}
	if res.Content == nil {
		return "result has no \"content\" array"
	}
	for i, c := range res.Content {
		if c.Type == "" {
			return fmt.Sprintf("content block #%d has no \"type\"", i+1)
		}
	}
	if len(t.OutputSchema) > 0 && !res.IsError && !isJSONObject(res.StructuredContent) {
		return "it declares an outputSchema but its result has no structuredContent object"
	}
	return ""
}

// argsFromSchema builds arguments for a tool: a value for every required
// property, from the schema's const, enum, default or examples, else a
// plain value of the declared type.
func argsFromSchema(raw json.RawMessage) (map[string]any, error) {
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil || schema == nil {
		return nil, fmt.Errorf("inputSchema is not a JSON object: %s", orAbsent(raw))
	}
	v, _ := objectValue(schema, 0).(map[string]any)
	return v, nil
}

// objectValue is an object holding a value for each required property.
func objectValue(schema map[string]any, depth int) any {
	props, _ := schema["properties"].(map[string]any)
	req, _ := schema["required"].([]any)
	out := map[string]any{}
	for _, n := range req {
		name, ok := n.(string)
		if !ok {
			continue
		}
		sub, _ := props[name].(map[string]any)
		out[name] = valueFor(sub, depth+1)
	}
	return out
}

// valueFor is a value that satisfies a (sub)schema in the common cases.
func valueFor(schema map[string]any, depth int) any {
	if schema == nil || depth > maxSchemaDepth {
		return "selftest"
	}
	if v, ok := schema["const"]; ok {
		return v
	}
	for _, key := range []string{"enum", "examples"} {
		if list, ok := schema[key].([]any); ok && len(list) > 0 {
			return list[0]
		}
	}
	if v, ok := schema["default"]; ok {
		return v
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if list, ok := schema[key].([]any); ok && len(list) > 0 {
			sub, _ := list[0].(map[string]any)
			return valueFor(sub, depth+1)
		}
	}
	switch schemaType(schema) {
	case "integer", "number":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return true
	case "null":
		return nil
	case "object":
		return objectValue(schema, depth)
	case "array":
		n, _ := schema["minItems"].(float64)
		items, _ := schema["items"].(map[string]any)
		out := make([]any, int(min(n, 8)))
		for i := range out {
			out[i] = valueFor(items, depth+1)
		}
		return out
	}
	n, _ := schema["minLength"].(float64)
	return "selftest" + strings.Repeat("x", max(int(min(n, 256))-8, 0))
}

// schemaType is a schema's type: the string, or the first non-null entry
// of a type list.
func schemaType(schema map[string]any) string {
	switch t := schema["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && s != "null" {
				return s
			}
		}
	}
	return ""
}

// missingArgTool picks the tool the missing-argument check calls: get_skill
// on an agent-3md server, else the first callable tool with a required
// property. It returns the arguments with one required property left out.
func (r *runner) missingArgTool() (toolDef, map[string]any, string, bool) {
	if t, ok := r.tools[toolGet]; ok && r.agent3md {
		return t, map[string]any{}, "name", true
	}
	for _, t := range r.toolOrder {
		if destructive(t) {
			continue
		}
		args, err := argsFromSchema(t.InputSchema)
		if err != nil || len(args) == 0 {
			continue
		}
		k := sortedKeys(args)[0]
		delete(args, k)
		return t, args, k, true
	}
	return toolDef{}, nil, "", false
}

// checkMissingArgument calls a tool without one of its required
// arguments. From 2025-11-25 on that is an isError result the model can
// act on; earlier revisions may answer -32602 instead.
func (r *runner) checkMissingArgument() outcome {
	c, out, ok := r.needTools("")
	if !ok {
		return out
	}
	t, args, left, ok := r.missingArgTool()
	if !ok {
		return skip("no listed tool has a required argument to leave out")
	}
	res, rerr, err := r.callTool(c, t.Name, args)
	rev := r.negotiated()
	switch {
	case err != nil:
		return fail("%v", err)
	case rerr != nil && rerr.Code == codeInvalidParams && rev < firstArgErrorRev:
		return pass("%s without %q: %d (allowed under %s)", t.Name, left, codeInvalidParams, rev)
	case rerr != nil:
		return fail("%s without %q answered %v; under %s a missing argument is a result with isError:true", t.Name, left, rerr, rev)
	case !res.IsError:
		return fail("%s without %q returned a result without isError:true: %q", t.Name, left, textclip.Bytes(res.Text(), 120))
	case strings.TrimSpace(res.Text()) == "":
		return fail("%s without %q returned isError:true with no text saying what is wrong", t.Name, left)
	}
	return pass("%s without %q: isError: %s", t.Name, left, textclip.Bytes(res.Text(), 80))
}
