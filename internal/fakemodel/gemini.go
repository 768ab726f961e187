package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Gemini is the Gemini API (POST /v1beta/models/MODEL:generateContent and
// :streamGenerateContent, streamed as server-sent events with alt=sse or
// as a JSON array; :countTokens), as Gemini CLI uses it. A request that
// asks for JSON (generationConfig.responseMimeType application/json, the
// CLI's model-routing classifier among them) and offers no tools gets an
// instance of its response schema.
var Gemini Dialect = gemini{}

type gemini struct{}

type geminiRequest struct {
	Contents          []geminiContent `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text         string `json:"text"`
	FunctionCall *struct {
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

// geminiMethod is the method of a models path: "streamGenerateContent"
// for /v1beta/models/gemini-x:streamGenerateContent.
func geminiMethod(path string) string {
	if i := strings.LastIndexByte(path, ':'); i >= 0 && strings.Contains(path, "/models/") {
		return path[i+1:]
	}
	return ""
}

func (gemini) parse(body []byte) (geminiRequest, error) {
	var req geminiRequest
	err := json.Unmarshal(body, &req)
	return req, err
}

func (g gemini) turn(r *http.Request, body []byte) (*Turn, error) {
	m := geminiMethod(r.URL.Path)
	if r.Method != http.MethodPost || (m != "generateContent" && m != "streamGenerateContent") {
		return nil, nil
	}
	req, err := g.parse(body)
	if err != nil {
		return nil, fmt.Errorf("not a generateContent request: %w", err)
	}
	t := &Turn{Stream: m == "streamGenerateContent"}
	for _, tl := range req.Tools {
		for _, raw := range tl.FunctionDeclarations {
			var d struct{ Name, Description string }
			json.Unmarshal(raw, &d)
			t.Tools = append(t.Tools, Tool{Name: d.Name, Description: d.Description, Raw: raw})
		}
	}
	if len(t.Tools) == 0 {
		return nil, nil
	}
	if req.SystemInstruction != nil {
		t.System = geminiText(req.SystemInstruction.Parts)
	}
	// Calls carry an id when the model gave one; otherwise a response
	// answers the oldest open call of its name.
	var open []Call
	var openIDs []string
	for _, c := range req.Contents {
		if text := geminiText(c.Parts); text != "" {
			t.Messages = append(t.Messages, text)
		}
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				open = append(open, Call{Name: p.FunctionCall.Name, Input: p.FunctionCall.Args})
				openIDs = append(openIDs, p.FunctionCall.ID)
			case p.FunctionResponse != nil:
				fr := p.FunctionResponse
				res := geminiResult(fr.Response)
				res.Raw, _ = json.Marshal(p)
				for i := range open {
					if (fr.ID != "" && openIDs[i] == fr.ID) || (fr.ID == "" && open[i].Name == fr.Name) {
						res.Call = open[i]
						open, openIDs = append(open[:i:i], open[i+1:]...), append(openIDs[:i:i], openIDs[i+1:]...)
						break
					}
				}
				if res.Call.Name == "" {
					res.Call.Name = fr.Name
				}
				t.Results = append(t.Results, res)
			}
		}
	}
	return t, nil
}

func geminiText(parts []geminiPart) string {
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// geminiResult reads a functionResponse's response object: its "output"
// (or "error") string is what the model reads when there is one; a
// "content" array of text parts otherwise; the object as JSON when
// neither.
func geminiResult(raw json.RawMessage) Result {
	var r struct {
		Output  *string `json:"output"`
		Error   *string `json:"error"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	json.Unmarshal(raw, &r)
	var res Result
	switch {
	case r.Output != nil:
		res.Parts = []Part{{Type: "text", Text: *r.Output}}
	case r.Error != nil:
		res.Parts, res.IsError = []Part{{Type: "text", Text: *r.Error}}, true
	case len(r.Content) > 0:
		for _, c := range r.Content {
			res.Parts = append(res.Parts, Part{Type: c.Type, Text: c.Text})
		}
	default:
		res.Parts = []Part{{Type: "json", Text: string(raw)}}
		res.Text = string(raw)
		return res
	}
	res.Text = joinText(res.Parts)
	return res
}

// geminiCandidate is the answer's one candidate.
func geminiCandidate(part map[string]any) map[string]any {
	return map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": []any{part}}}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  "fake",
	}
}

func (gemini) answer(w http.ResponseWriter, t *Turn, c *Call, final string, n int) {
	part := map[string]any{"text": final}
	if c != nil {
		in := c.Input
		if in == nil {
			in = map[string]any{}
		}
		part = map[string]any{"functionCall": map[string]any{"name": c.Name, "args": in}}
	}
	geminiWrite(w, t.Stream, geminiCandidate(part))
}

// geminiWrite answers one response: as an event when streamed (the CLI
// asks for alt=sse), else as JSON.
func geminiWrite(w http.ResponseWriter, stream bool, resp map[string]any) {
	if !stream {
		writeJSON(w, resp)
		return
	}
	newSSE(w).event("", resp)
}

func (g gemini) side(w http.ResponseWriter, r *http.Request, body []byte) {
	switch m := geminiMethod(r.URL.Path); {
	case r.Method == http.MethodPost && m == "countTokens":
		writeJSON(w, map[string]any{"totalTokens": len(body)/4 + 1})
	case r.Method == http.MethodPost && (m == "generateContent" || m == "streamGenerateContent"):
		req, _ := g.parse(body)
		text := "ok"
		if strings.Contains(req.GenerationConfig.ResponseMimeType, "json") {
			schema := req.GenerationConfig.ResponseJSONSchema
			if len(schema) == 0 {
				schema = req.GenerationConfig.ResponseSchema
			}
			b, _ := json.Marshal(instance(schema))
			text = string(b)
		}
		stream := m == "streamGenerateContent"
		geminiWrite(w, stream, geminiCandidate(map[string]any{"text": text}))
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": 404, "status": "NOT_FOUND",
			"message": "the fake model serves models/M:generateContent, :streamGenerateContent and :countTokens"}})
	}
}

// instance is a value that satisfies a JSON schema (or a Gemini Schema,
// whose type names are upper case): an object with all its
// properties, an enum's first value, a
// plausible scalar. Enough for a
// classifier's answer to parse.
func instance(raw json.RawMessage) any {
	var s struct {
		Type       any                        `json:"type"`
		Minimum    *float64                   `json:"minimum"`
		Enum       []any                      `json:"enum"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return map[string]any{}
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	typ, _ := s.Type.(string)
	if list, ok := s.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch strings.ToLower(typ) {
	case "string":
		return "fake"
	case "integer", "number":
		// 1 unless the schema says otherwise: scores and counts the
		// CLI asks for start at 1 even when the schema only says so in
		// words.
		if s.Minimum != nil {
			return *s.Minimum
		}
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "null":
		return nil
	}
	obj := map[string]any{}
	for name, p := range s.Properties {
		obj[name] = instance(p)
	}
	return obj
}
