package selftest_test

// The fake server's list_skills shapes and its generic (non-agent-3md)
// variant: other tools, resources and prompts.

import (
	"encoding/json"
	"strconv"
)

// listSkills answers list_skills: the top-level array, in pages of two
// for vPaged (nextCursor in structuredContent), or the old object shape
// for vOldShape.
func (s *fakeServer) listSkills(params json.RawMessage) (any, int, string, any) {
	if s.variant == vOldShape {
		b, _ := json.Marshal(map[string]any{"agent": "fake", "skills": fakeSkills})
		return toolText(string(b), false)
	}
	if s.variant != vPaged {
		b, _ := json.Marshal(fakeSkills)
		return toolText(string(b), false)
	}
	var p struct {
		Arguments struct {
			Cursor string `json:"cursor"`
		} `json:"arguments"`
	}
	json.Unmarshal(params, &p)
	start := 0
	if p.Arguments.Cursor != "" {
		n, err := strconv.Atoi(p.Arguments.Cursor)
		if err != nil || n < 0 || n >= len(fakeSkills) {
			return toolText("bad cursor "+p.Arguments.Cursor, true)
		}
		start = n
	}
	end := min(start+2, len(fakeSkills))
	b, _ := json.Marshal(fakeSkills[start:end])
	sc := map[string]any{"total": len(fakeSkills)}
	if end < len(fakeSkills) {
		sc["nextCursor"] = strconv.Itoa(end)
	}
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": string(b)}}, "structuredContent": sc}, 0, "", nil
}

// genericTools are the tools of a server that is not an agent-3md server
// (list_skills and get_skill are common names elsewhere).
func genericTools() []map[string]any {
	yes := true
	return []map[string]any{
		{"name": "list_skills", "inputSchema": map[string]any{"type": "object"}},
		{"name": "get_skill", "inputSchema": map[string]any{"type": "object",
			"properties": map[string]any{"skill_name": map[string]any{"type": "string"}}, "required": []string{"skill_name"}}},
		{"name": "add", "inputSchema": map[string]any{"type": "object",
			"properties": map[string]any{
				"a":    map[string]any{"type": "integer", "minimum": 3},
				"b":    map[string]any{"type": []string{"number", "null"}},
				"mode": map[string]any{"enum": []string{"fast", "exact"}},
			}, "required": []string{"a", "b", "mode"}},
			"outputSchema": map[string]any{"type": "object"}},
		{"name": "wipe", "inputSchema": map[string]any{"type": "object"},
			"annotations": map[string]any{"destructiveHint": &yes}},
	}
}

// callGeneric answers the generic tools; wipe must never be called, and
// add checks the arguments were built from its schema.
func callGeneric(params json.RawMessage) (any, int, string, any) {
	var p struct {
		Name      string                     `json:"name"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, -32602, "bad params", nil
	}
	switch p.Name {
	case "list_skills":
		return toolText("skills: alpha, beta", false)
	case "get_skill":
		if p.Arguments["skill_name"] == nil {
			return toolText("skill_name is required", true)
		}
		return toolText("no such skill", true)
	case "add":
		var a, b float64
		var mode string
		if json.Unmarshal(p.Arguments["a"], &a) != nil || a < 3 || json.Unmarshal(p.Arguments["b"], &b) != nil ||
			json.Unmarshal(p.Arguments["mode"], &mode) != nil || mode != "fast" {
			return nil, -32603, "arguments do not match the schema", nil
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}},
			"structuredContent": map[string]any{"sum": a + b}}, 0, "", nil
	case "wipe":
		return nil, -32603, "wipe was called: a destructive tool must not be", nil
	}
	return nil, -32602, "Unknown tool: " + p.Name, nil
}

// genericMethod answers resources/* and prompts/* for vGeneric, in the
// era the request was sent in.
func genericMethod(method string, params json.RawMessage, modern bool) (any, int, string, any) {
	res, code, msg, data := genericLegacy(method, params)
	if code == -32002 && modern {
		code = -32602
	}
	if m, ok := res.(map[string]any); ok && modern {
		m["resultType"] = "complete"
		if method != "prompts/get" {
			m["ttlMs"], m["cacheScope"] = 0, "public"
		}
	}
	return res, code, msg, data
}

// genericLegacy answers resources/* and prompts/* as a legacy server.
func genericLegacy(method string, params json.RawMessage) (any, int, string, any) {
	var p struct {
		URI       string            `json:"uri"`
		Name      string            `json:"name"`
		Cursor    string            `json:"cursor"`
		Arguments map[string]string `json:"arguments"`
	}
	json.Unmarshal(params, &p)
	switch method {
	case "resources/list":
		if p.Cursor == "" {
			return map[string]any{"resources": []any{map[string]any{"uri": "mem://a", "name": "a"}}, "nextCursor": "2"}, 0, "", nil
		}
		return map[string]any{"resources": []any{map[string]any{"uri": "mem://b", "name": "b", "mimeType": "text/plain"}}}, 0, "", nil
	case "resources/read":
		if p.URI != "mem://a" && p.URI != "mem://b" {
			return nil, -32002, "Resource not found", map[string]any{"uri": p.URI}
		}
		return map[string]any{"contents": []any{map[string]any{"uri": p.URI, "text": "hello"}}}, 0, "", nil
	case "prompts/list":
		return map[string]any{"prompts": []any{
			map[string]any{"name": "greet", "arguments": []any{map[string]any{"name": "who", "required": true}}},
			map[string]any{"name": "plain"},
		}}, 0, "", nil
	case "prompts/get":
		switch {
		case p.Name == "greet" && p.Arguments["who"] != "":
		case p.Name == "plain":
		default:
			return nil, -32602, "unknown prompt or missing argument", nil
		}
		return map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}}, 0, "", nil
	}
	return nil, -32601, "Method not found: " + method, nil
}
