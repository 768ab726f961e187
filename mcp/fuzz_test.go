package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzServe feeds arbitrary stdin to Serve: it must never panic, must
// return at EOF, and must write only whole JSON-RPC messages, one per line.
// Seeds are the inputs of every transcript.
func FuzzServe(f *testing.F) {
	files, _ := filepath.Glob("testdata/transcripts/*.txtar")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		tr, err := parseTranscript(data)
		if err != nil {
			f.Fatalf("%s: %v", file, err)
		}
		var all []byte
		for _, s := range tr.steps {
			f.Add(s.in)
			all = append(all, s.in...)
		}
		f.Add(all)
	}
	a := openAda(f)
	ro := testRouterOptions(f)
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		opts := &Options{Source: Loaded(a), Router: ro, MaxLineBytes: 512}
		done := make(chan error, 1)
		go func() { done <- Serve(context.Background(), bytes.NewReader(input), &out, opts) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Serve = %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Serve did not return at EOF for %q", input)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var msg any
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				t.Fatalf("output line is not JSON: %q", line)
			}
			if !utf8.ValidString(line) {
				t.Fatalf("output line is not valid UTF-8: %q", line)
			}
			if !strings.Contains(line, `"jsonrpc":"2.0"`) {
				t.Fatalf("output line is not JSON-RPC 2.0: %q", line)
			}
		}
	})
}

// FuzzEachMember: for any valid JSON object, eachMember yields the names
// and raw values encoding/json decodes, the last of a repeated name
// winning, whether a name is one knownKey answers or not.
func FuzzEachMember(f *testing.F) {
	for _, s := range []string{`{}`, `{"id":1,"id":2}`, `{"te\u0078t":"a","text":"b"}`, `{"method":"x","params":{"name":"y"}}`, `{"\u00e9":[1,{"a":"}"}]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		b := bytes.TrimSpace([]byte(in))
		if !json.Valid(b) || len(b) == 0 || b[0] != '{' {
			return
		}
		want := map[string]json.RawMessage{}
		if err := json.Unmarshal(b, &want); err != nil {
			return // valid JSON that is not an object of members
		}
		got := map[string]json.RawMessage{}
		eachMember(b, func(k string, v []byte) { got[k] = v })
		if len(got) != len(want) {
			t.Fatalf("%s: %d members, want %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
				t.Fatalf("%s: member %q = %s, want %s", b, k, got[k], v)
			}
		}
	})
}

// FuzzEachElement: for any valid JSON array, eachElement yields exactly
// the elements encoding/json decodes, in order, as slices of the array;
// and each yields its short errors within the memory a batch plans for it
// (plannedEntryMax besides the element).
func FuzzEachElement(f *testing.F) {
	for _, s := range []string{`[]`, `[ ]`, `[1,"a",{"b":[2,3]}]`, `[ {"jsonrpc":"2.0","id":"x,]","method":"ping"} , [ ] ,null]`, `[[[]],{"a":"\"]"}]`} {
		f.Add(s)
	}
	a := &httpBatch{tl: tooLargeEntry(1 << 30)}
	f.Fuzz(func(t *testing.T, in string) {
		b := bytes.TrimSpace([]byte(in))
		if len(b) == 0 || b[0] != '[' || !json.Valid(b) {
			return
		}
		var want []json.RawMessage
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%s: valid JSON array not decoded: %v", b, err)
		}
		var got [][]byte
		eachElement(b, func(start, end int) { got = append(got, b[start:end]) })
		if len(got) != len(want) {
			t.Fatalf("%s: %d elements, want %d", b, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], bytes.TrimSpace(want[i])) {
				t.Fatalf("%s: element %d = %s, want %s", b, i, got[i], want[i])
			}
			pk, ok := peek(got[i])
			lines := [][]byte{a.fixedLine(got[i], &pk, ok)}
			if ok && pk.request {
				lines = append(lines, a.tl.appendEntry(nil, pk.msg.rawID), busyEntry.appendEntry(nil, pk.msg.rawID))
			}
			for _, l := range lines {
				if len(l)+1 > a.planned(len(got[i])) {
					t.Fatalf("%s: an entry of %d bytes for element %s, over the %d planned", b, len(l), got[i], a.planned(len(got[i])))
				}
			}
		}
	})
}

// FuzzHTTPBody posts arbitrary bodies to the HTTP handler, with and
// without a 2025-03-26 header (the one revision whose batches it serves):
// it must never panic, and every answer with a body must be one JSON
// value, an object or, for a batch, an array of JSON-RPC 2.0 objects.
func FuzzHTTPBody(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`[]`, `[1,[2],{"jsonrpc":"2.0","id":"x","method":"initialize"}]`, `[{`,
		`[{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"skill://style/SKILL.md"}}]`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	S, err := NewServer(context.Background(), &Options{Source: Loaded(openAda(f)), Router: testRouterOptions(f), Version: "test"})
	if err != nil {
		f.Fatal(err)
	}
	defer S.Close()
	h := S.HTTPHandler(&HTTPOptions{MaxBodyBytes: 1 << 16, MaxBatchAnswerBytes: 1 << 14})
	f.Fuzz(func(t *testing.T, body []byte, header bool) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if header {
			req.Header.Set("MCP-Protocol-Version", "2025-03-26")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		out := bytes.TrimSpace(rec.Body.Bytes())
		if len(out) == 0 {
			return
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("answer %d is not one JSON value: %q", rec.Code, out)
		}
		msgs, isArray := v.([]any)
		if !isArray {
			msgs = []any{v}
		}
		for _, m := range msgs {
			o, ok := m.(map[string]any)
			if !ok || o["jsonrpc"] != "2.0" {
				t.Fatalf("answer holds a non-JSON-RPC value: %q", out)
			}
		}
	})
}
