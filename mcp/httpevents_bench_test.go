package mcp

import (
	"bufio"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// BenchmarkChangeStreamsPoke is what a reload adds to its announcement
// for the handshake-era GET streams: marking each of 1,024 open streams
// (serve's default --max-streams) changed, with every mark already
// pending (readers that have not caught up).
func BenchmarkChangeStreamsPoke(b *testing.B) {
	var c changeStreams
	for range 1024 {
		c.add()
	}
	c.pokeAll()
	b.ResetTimer()
	for b.Loop() {
		c.pokeAll()
	}
}

// BenchmarkGetStreamMemory opens 256 GET streams over loopback against
// a watched agent and reports what one open stream costs the server
// process (heap and goroutine stacks, client side included: the client
// runs in the same process, so the figure is an upper bound) and how long
// a reload takes to reach all of them.
func BenchmarkGetStreamMemory(b *testing.B) {
	const n = 256
	b.StopTimer()
	for range b.N {
		S, url, _, _ := watchedHTTP(b, &HTTPOptions{KeepAlive: time.Hour})
		before := inUse()
		var bodies []*bufio.Reader
		var resps []*http.Response
		for range n {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("GET stream: %v %v", err, resp)
			}
			resps = append(resps, resp)
			bodies = append(bodies, bufio.NewReader(resp.Body))
		}
		per := float64(inUse()-before) / n
		b.StartTimer()
		S.srv.changes.pokeAll()
		for _, br := range bodies {
			for {
				l, err := br.ReadString('\n')
				if err != nil {
					b.Fatal(err)
				}
				if l == "\n" { // the end of the first event
					break
				}
			}
		}
		b.StopTimer()
		b.ReportMetric(per, "B/stream")
		for _, r := range resps {
			r.Body.Close()
		}
		S.Close()
	}
}

// inUse is the heap and stack memory in use, after a collection.
func inUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
