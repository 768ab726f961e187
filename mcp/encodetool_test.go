package mcp

import (
	"encoding/json"
	"testing"
)

// TestEncodeToolResultIdentical: a tool result encoded once, structured
// content spliced in, is byte for byte what encoding/json writes for the
// same result, legacy and with the modern keys in front.
func TestEncodeToolResultIdentical(t *testing.T) {
	structured := json.RawMessage(`{"name":"a<b>&c","body":"x\u2028y \"q\" é","n":[1,2]}`)
	cases := []*toolCallResult{
		{Content: []textContent{{Type: "text", Text: "plain"}}},
		{Content: []textContent{{Type: "text", Text: "<b>&amp;\n\t\"q\"\\ é\u2028"}}, StructuredContent: structured},
		{Content: []textContent{{Type: "text", Text: "one"}, {Type: "text", Text: "two <3"}}, StructuredContent: structured},
		{Content: []textContent{{Type: "text", Text: "failed"}}, IsError: true},
		{Content: []textContent{{Type: "text", Text: "failed"}}, StructuredContent: json.RawMessage(`{"isError":true}`), IsError: true},
		{Content: []textContent{}, StructuredContent: json.RawMessage(`{}`)},
		{StructuredContent: json.RawMessage(`{"a":1}`)},
		{Content: []textContent{{Type: "text", Text: "bad \xff utf-8 \x00\x1b"}}, IsError: true},
	}
	for i, r := range cases {
		want, err := encodeResult(r)
		if err != nil {
			t.Fatal(err)
		}
		before := string(r.StructuredContent)
		got, err := encodeToolResult(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(got.enc) != string(want) || got.isError != r.IsError {
			t.Errorf("case %d:\n got %s (isError %v)\nwant %s", i, got.enc, got.isError, want)
		}
		if string(r.StructuredContent) != before {
			t.Errorf("case %d: the result's structured content changed", i)
		}
		ttl := int64(5)
		m := modernFields{ResultType: "complete", Meta: map[string]any{"k": "<v>"}, TTLMs: &ttl, CacheScope: "s"}
		stamped, err := stampEncoded(got, &m)
		if err != nil {
			t.Fatal(err)
		}
		modern := *r
		modern.modernFields = m
		want, err = encodeResult(&modern)
		if err != nil {
			t.Fatal(err)
		}
		if string(stamped) != string(want) {
			t.Errorf("case %d modern:\n got %s\nwant %s", i, stamped, want)
		}
	}
}
