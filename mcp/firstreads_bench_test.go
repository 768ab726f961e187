package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// BenchmarkFirstReads measures get_skill and resolve_skill pipelined over
// all 4,000 skills of a synthetic agent, each skill asked for once per
// 4,000 requests, beside get_skill of the same 8 skills ("same"): a first
// read costs the body's read from the file and its encoding, which the
// answer cache saves on repeats. The index build is left to finish first
// so it does not compete for the cores.
func BenchmarkFirstReads(b *testing.B) {
	a := openSynth(b, 4000)
	skills := a.Skills()
	for _, tool := range []string{"get_skill", "resolve_skill", "same"} {
		b.Run(tool, func(b *testing.B) {
			c := newPipeClient(b, a)
			c.roundTrip(b, benchInit)
			c.roundTrip(b, benchRoute)
			time.Sleep(2 * time.Second)
			c.pipelined(b, func(w *bufio.Writer, i int) {
				tool, name := tool, skills[(i*7919)%len(skills)].Name
				if tool == "same" {
					tool, name = "get_skill", skills[i%8].Name
				}
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{"name":%q}}}`+"\n", tool, name)
			})
		})
	}
}

// BenchmarkDispatchFirstReads is BenchmarkFirstReads without the
// connection: the server's own cost of a first read (the body's read from
// the file, its escaping, the answer's encoding), each skill of 4,000
// asked for once per 4,000 calls.
func BenchmarkDispatchFirstReads(b *testing.B) {
	for _, tool := range []string{"get_skill", "resolve_skill"} {
		b.Run(tool, func(b *testing.B) {
			a := openSynth(b, 4000)
			s := newServer(&Options{Source: Loaded(a)})
			sess := &session{version: version20251125}
			ctx := context.Background()
			skills := a.Skills()
			params := make([]map[string]json.RawMessage, len(skills))
			for i, sk := range skills {
				params[i] = map[string]json.RawMessage{"name": json.RawMessage(`"` + tool + `"`), "arguments": json.RawMessage(`{"name":"` + sk.Name + `"}`)}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := s.dispatch(ctx, sess, methodToolsCall, params[(i*7919)%len(params)])
				if err != nil {
					b.Fatal(err)
				}
				if t, ok := res.(encodedTool); ok {
					releaseTool(t)
				}
			}
		})
	}
}
