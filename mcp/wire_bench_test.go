package mcp

import "testing"

// BenchmarkDecodeMessage measures checking and taking apart one request,
// the wire layer's work on every line: the JSON check and the walk over
// the message's members (internal/jsoncheck).
func BenchmarkDecodeMessage(b *testing.B) {
	for _, bc := range []struct{ name, req string }{
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"route_skill", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"rotate the logs and check disk usage","limit":5}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			raw := []byte(bc.req)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if m, errLine := decodeMessage(raw); errLine != nil || m.method == "" {
					b.Fatalf("decodeMessage(%s): %s", raw, errLine)
				}
			}
		})
	}
}
