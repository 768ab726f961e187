package mcpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agent3md/agent3md/mcpclient"
)

// BenchmarkHTTPCall is one tools/call over HTTP to an in-process server:
// through a Conn, and as bare net/http with one decode (what mcpbench's
// HTTP mode did before it used the client), so the difference is what
// the client costs a request.
func BenchmarkHTTPCall(b *testing.B) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"deploy  (score 1; matched: deploy)"}]}}`, m.ID)
	}))
	defer ts.Close()
	params := map[string]any{"name": "route_skill", "arguments": map[string]any{"text": "deploy the app"}}
	b.Run("client", func(b *testing.B) {
		c, err := mcpclient.Dial(ts.URL, &mcpclient.Options{HTTPClient: ts.Client(), ProtocolVersion: mcpclient.LatestLegacy})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			var res mcpclient.ToolResult
			if err := c.Call(ctx, "tools/call", params, &res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("net/http", func(b *testing.B) {
		hc := ts.Client()
		b.ReportAllocs()
		id := 0
		for b.Loop() {
			id++
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
			req, _ := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader(body))
			req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
				"MCP-Protocol-Version": {mcpclient.LatestLegacy}}
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var m mcpclient.Message
			if err := json.Unmarshal(data, &m); err != nil {
				b.Fatal(err)
			}
			var res mcpclient.ToolResult
			json.Unmarshal(m.Result, &res)
		}
	})
}
