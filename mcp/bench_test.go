package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/synth"
	"github.com/agent3md/agent3md/loader"
)

// pipeClient is a minimal line client of one Serve, for benchmarks.
type pipeClient struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func newPipeClient(tb testing.TB, a *loader.Agent) *pipeClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &pipeClient{in: inW, out: bufio.NewReaderSize(outR, 1<<20), done: make(chan error, 1)}
	go func() {
		// As agent3md's servers route: a cold index builds behind the
		// first answers (router.Options.Background).
		ro := testRouterOptions(tb)
		ro.Background = true
		c.done <- Serve(context.Background(), inR, outW, &Options{Source: Loaded(a), Router: ro})
		outW.Close()
	}()
	return c
}

// roundTrip writes one line and reads one line back.
func (c *pipeClient) roundTrip(tb testing.TB, line string) string {
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		tb.Fatal(err)
	}
	got, err := c.out.ReadString('\n')
	if err != nil {
		tb.Fatal(err)
	}
	return got
}

func (c *pipeClient) close(tb testing.TB) {
	c.in.Close()
	if err := <-c.done; err != nil {
		tb.Fatal(err)
	}
}

// benchRoute waits for the background index build (route_skill blocks on
// it), so benchmarks time requests, not the build competing for the CPU.
const benchRoute = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"report"}}}`

const benchInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`

// openSynth opens a generated agent of n skills pinned to its one
// version, as `agent3md mcp` serves a file it watches.
func openSynth(tb testing.TB, n int) *loader.Agent {
	a, err := loader.Open(synth.Path(tb, n), &loader.Options{NoRescan: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { a.Close() })
	return a
}

// openSized opens testdata/ada.3md for n == 4, its skill count, and a
// generated agent of n skills otherwise.
func openSized(tb testing.TB, n int) *loader.Agent {
	if n == 4 {
		return openAda(tb)
	}
	return openSynth(tb, n)
}

// benchRequest is one request a benchmark times, by its sub-benchmark name.
type benchRequest struct{ name, req string }

// benchRequests are the six requests docs/performance.md §1 compares with
// the reference server, get_skill and resolve_skill asking for skill.
func benchRequests(skill string) []benchRequest {
	return []benchRequest{
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{"tools_list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"list_skills", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}`},
		{"get_skill", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":%q}}}`, skill)},
		{"resolve_skill", fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"resolve_skill","arguments":{"name":%q}}}`, skill)},
		{"route_skill", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"rotate the logs and check disk usage","limit":5}}}`},
	}
}

// BenchmarkRoundTrip measures one request through framing, validation,
// dispatch and the response write, one request at a time, on a 10-skill
// and a 1,000-skill agent: the six requests docs/performance.md §1
// compares with the reference server.
func BenchmarkRoundTrip(b *testing.B) {
	for _, n := range []int{10, 1000} {
		a := openSynth(b, n)
		cases := benchRequests(a.Skills()[len(a.Skills())/2].Name)
		for _, bc := range cases {
			b.Run(fmt.Sprintf("skills=%d/%s", n, bc.name), func(b *testing.B) {
				c := newPipeClient(b, a)
				c.roundTrip(b, benchInit)
				c.roundTrip(b, benchRoute)
				if got := c.roundTrip(b, bc.req); strings.Contains(got, `"error"`) || strings.Contains(got, `"isError"`) {
					b.Fatalf("warm-up failed: %.300s", got)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c.roundTrip(b, bc.req)
				}
				b.StopTimer()
				c.close(b)
			})
		}
	}
}

// BenchmarkPipelined measures requests written ahead of their answers (a
// writer and a reader running at once), as a pipelining client and the
// side-by-side harness drive the server: the per-request cost without the
// round trip's wait.
func BenchmarkPipelined(b *testing.B) {
	a := openSynth(b, 10)
	cases := benchRequests(a.Skills()[5].Name)
	cases = append(cases, benchRequest{"route_hits", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"please deploy the nightly report"}}}`})
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			c := newPipeClient(b, a)
			c.roundTrip(b, benchInit)
			c.roundTrip(b, benchRoute)
			c.pipelined(b, func(w *bufio.Writer, _ int) { w.WriteString(bc.req + "\n") })
		})
	}
}

// pipelined times b.N requests written ahead of their answers: one
// goroutine writes request i with write, this one reads the answers.
func (c *pipeClient) pipelined(b *testing.B, write func(w *bufio.Writer, i int)) {
	b.ReportAllocs()
	b.ResetTimer()
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(c.in, 64<<10)
		for i := 0; i < b.N; i++ {
			write(w, i)
		}
		werr <- w.Flush() // a write error sticks to w and shows here
	}()
	for i := 0; i < b.N; i++ {
		if _, err := c.out.ReadSlice('\n'); err != nil && err != bufio.ErrBufferFull {
			b.Fatal(err)
		}
	}
	if err := <-werr; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	c.close(b)
}

// BenchmarkHandshake measures Serve start to the initialize response on a
// 10,000-skill agent: the routing index builds in the background, so the
// handshake must not wait for it.
func BenchmarkHandshake(b *testing.B) {
	a := openSynth(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := newPipeClient(b, a)
		got := c.roundTrip(b, benchInit)
		b.StopTimer()
		if !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
			b.Fatalf("initialize: %.200s", got)
		}
		c.close(b)
		b.StartTimer()
	}
}

// TestSkillNamesBudget: get_skill's description names skills only up to
// its budget, then says how many more there are.
func TestSkillNamesBudget(t *testing.T) {
	for _, n := range []int{4, 300} {
		a := openSized(t, n)
		s := newServer(&Options{Source: Loaded(a)})
		v := s.cur.Load()
		got, _ := v.descs.get(v.agent)
		if len(got) > maxSkillNamesBytes+120 {
			t.Errorf("%d skills: sentence is %d bytes, over the budget", n, len(got))
		}
		all := len(a.Skills())
		shown := strings.Count(strings.SplitN(got, " … ", 2)[0], ", ") + 1
		if shown < all && !strings.HasSuffix(got, fmt.Sprintf("… and %d more: find one with route_skill, or with list_skills and a query.", all-shown)) {
			t.Errorf("%d skills, %d shown: %q does not say how many more", all, shown, got)
		}
		if shown == all && strings.Contains(got, "more") {
			t.Errorf("all skills fit, yet %q says there are more", got)
		}
		res, err := s.toolsList(context.Background(), &call{srv: s, version: version20251125, params: map[string]json.RawMessage{}})
		if err != nil {
			t.Fatal(err)
		}
		desc := res.(*toolsListResult).Tools[2].Description
		if !strings.HasSuffix(desc, got) {
			t.Errorf("get_skill description does not end with the names: %q", desc)
		}
	}
}

// BenchmarkListSkills measures list_skills pages on a 10,000-skill agent:
// the default page, the largest page, and a filtered page (which scans
// every skill's name and triggers). SetBytes makes the figure a response
// throughput.
func BenchmarkListSkills(b *testing.B) {
	a := openSynth(b, 10000)
	for _, bc := range []struct{ name, args string }{
		{"default", `{}`},
		{"limit1000", `{"limit":1000}`},
		{"query", `{"query":"report","limit":10}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := newPipeClient(b, a)
			c.roundTrip(b, benchInit)
			c.roundTrip(b, benchRoute)
			req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_skills","arguments":` + bc.args + `}}`
			b.SetBytes(int64(len(c.roundTrip(b, req))))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.roundTrip(b, req)
			}
			b.StopTimer()
			c.close(b)
		})
	}
}
