package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// The HTTP mode (-http): `agent3md serve` on loopback, driven by 1, 8 and
// 64 concurrent keep-alive clients (one connection each, one request at a
// time), timing route_skill, get_skill and resources/read of a skill's
// SKILL.md. Each run starts a fresh server on a warm routing cache; each
// cell sends requests for -http-duration and records every latency. The
// table shows, per cell, the median over runs of the throughput and of the
// p50 and p99 latencies, then the server's RSS while 64 clients were
// busy, next to the bar of docs/http.md (p99 under 5 ms at 8 clients).

// httpKinds are the request kinds the HTTP mode times.
var httpKinds = []string{"route_skill", "get_skill", "resources/read"}

// httpBarClients and httpBarP99MS are the bar: p99 under 5 ms at 8 clients.
const (
	httpBarClients = 8
	httpBarP99MS   = 5.0
)

// httpCell is the samples of one kind at one client count.
type httpCell struct {
	Kind     string    `json:"kind"`
	Clients  int       `json:"clients"`
	PerSec   []float64 `json:"reqPerSec"`
	P50MS    []float64 `json:"p50MS"`
	P99MS    []float64 `json:"p99MS"`
	Requests int       `json:"requests"`
}

// httpResult is everything measured for one agent size.
type httpResult struct {
	Size    int         `json:"size"`
	Cells   []*httpCell `json:"cells"`
	RSS64MB []float64   `json:"rssAt64ClientsMB"` // largest VmRSS seen at the end of a 64-client cell, per run
	PeakMB  []float64   `json:"peakRSSMB"`        // VmHWM at the end of each run
	Errors  []string    `json:"errors,omitempty"`
}

// listeningLine finds the bound address in the server's startup log.
var listeningLine = regexp.MustCompile(`msg=listening addr=(\S+)`)

// httpServer is one running `agent3md serve`.
type httpServer struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}

	mu   sync.Mutex
	tail []string // the last lines of its log, for error messages
}

// logTailLines is how many log lines an httpServer keeps.
const logTailLines = 20

// logged keeps line among the last logTailLines.
func (s *httpServer) logged(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.tail) == logTailLines {
		s.tail = s.tail[1:]
	}
	s.tail = append(s.tail, strings.TrimRight(line, "\n"))
}

// startHTTPServer runs `agent3md serve --addr 127.0.0.1:0` on agent with a
// warm cache and waits for its listening line.
func startHTTPServer(bin, cacheDir, agent string, timeout time.Duration) (*httpServer, error) {
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--cache-dir", cacheDir, "--no-watch", agent)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	s := &httpServer{cmd: cmd, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	addr := make(chan string, 1)
	go func() {
		// The server logs one line per request (as deployed); it is read
		// and dropped, keeping a tail for error messages.
		br := bufio.NewReaderSize(pipe, 64<<10)
		for {
			line, err := br.ReadString('\n')
			if m := listeningLine.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
			s.logged(line)
			if err != nil {
				break
			}
		}
		cmd.Wait()
		close(s.done)
	}()
	select {
	case a := <-addr:
		s.url = "http://" + a + "/mcp"
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("agent3md serve exited before listening%s", s.note())
	case <-time.After(timeout):
		s.stop()
		return nil, fmt.Errorf("agent3md serve did not listen within %v%s", timeout, s.note())
	}
}

func (s *httpServer) note() string {
	s.mu.Lock()
	tail := strings.TrimSpace(strings.Join(s.tail, "\n"))
	s.mu.Unlock()
	if tail == "" {
		return ""
	}
	return "\n  server stderr (tail):\n    " + strings.ReplaceAll(tail, "\n", "\n    ")
}

// stop interrupts the server and waits for it.
func (s *httpServer) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// httpProbe drives one server.
type httpProbe struct {
	words words
	size  int
	url   string
}

// request is the k-th request of kind, in the handshake era (no _meta; the
// MCP-Protocol-Version header says 2025-11-25).
func (p *httpProbe) request(kind string, id, k int) mcpclient.Request {
	var r mcpclient.Request
	switch kind {
	case "route_skill":
		r = routeRequest(p.words.text(k))
	case "get_skill":
		r = request("tools/call", map[string]any{"name": "get_skill", "arguments": map[string]any{"name": p.words.skillName(k, p.size)}})
	case "resources/read":
		r = request("resources/read", map[string]any{"uri": "skill://" + p.words.skillName(k, p.size) + "/SKILL.md"})
	}
	r.ID = id
	return r
}

// dial is a client of the server that sends through hc, as a handshake-era
// client past its initialize.
func (p *httpProbe) dial(hc *http.Client) (*mcpclient.Conn, error) {
	return mcpclient.Dial(p.url, &mcpclient.Options{HTTPClient: hc, ProtocolVersion: legacyVersion})
}

// send posts one request and checks that it is answered 200 with its id
// (the client matches it) and no error.
func (p *httpProbe) send(c *mcpclient.Conn, kind string, id, k int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pd, err := c.Start(ctx, p.request(kind, id, k))
	if err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	m, err := pd.Wait(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	if status := pd.HTTPStatus(); status != http.StatusOK {
		raw, _ := pd.Raw()
		return fmt.Errorf("%s: status %d: %.200s", kind, status, raw)
	}
	if m.Error != nil {
		return fmt.Errorf("%s: error %d %s", kind, m.Error.Code, m.Error.Message)
	}
	if kind != "resources/read" {
		if _, err := toolText(m.Result); err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
	}
	return nil
}

// cell runs clients concurrent clients for d and returns the throughput
// and the sorted latencies. onBusy runs while they are all still sending.
func (p *httpProbe) cell(kind string, clients int, d time.Duration, onBusy func()) (float64, []time.Duration, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu       sync.Mutex
		all      []time.Duration
		firstErr error
		wg       sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{MaxIdleConnsPerHost: 1}
			defer tr.CloseIdleConnections()
			c, err := p.dial(&http.Client{Transport: tr, Timeout: 30 * time.Second})
			if err != nil {
				mu.Lock()
				firstErr = cmp.Or(firstErr, err)
				mu.Unlock()
				cancel()
				return
			}
			defer c.Close()
			lat := make([]time.Duration, 0, 4096)
			for k := i; ctx.Err() == nil && time.Now().Before(deadline); k += clients {
				t0 := time.Now()
				if err := p.send(c, kind, k+1, k); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	if onBusy != nil {
		time.Sleep(d * 3 / 4)
		onBusy()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return 0, nil, firstErr
	}
	slices.Sort(all)
	return float64(len(all)) / elapsed.Seconds(), all, nil
}

// percentileMS is the q-quantile (0..1) of sorted latencies, in ms.
func percentileMS(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	i = max(0, min(i, len(sorted)-1))
	return ms(sorted[i])
}

// measureHTTP runs the HTTP mode on an agent of n skills.
func measureHTTP(o *options, w words, n int, tmp string, log io.Writer) *httpResult {
	r := &httpResult{Size: n}
	fail := func(what string, err error) {
		r.Errors = append(r.Errors, what+": "+err.Error())
		fmt.Fprintf(log, "FAILED size %d: %s: %v\n", n, what, err)
	}
	agent, _, err := ensureAgent(o.gen, o.dir, n)
	if err != nil {
		fail("generating the agent", err)
		return r
	}
	timeout := o.timeout
	if timeout == 0 {
		timeout = 30*time.Second + time.Duration(n)*2*time.Millisecond
	}
	cache := fmt.Sprintf("%s/http-cache-%d", tmp, n)
	if err := buildCache(o.bin, cache, agent, timeout); err != nil {
		fail("building the routing cache", err)
		return r
	}
	cells := map[string]*httpCell{}
	for _, kind := range httpKinds {
		for _, c := range o.httpClients {
			cell := &httpCell{Kind: kind, Clients: c}
			cells[fmt.Sprint(kind, c)] = cell
			r.Cells = append(r.Cells, cell)
		}
	}
	for run := range o.runs {
		s, err := startHTTPServer(o.bin, cache, agent, timeout)
		if err != nil {
			fail("starting agent3md serve", err)
			return r
		}
		p := &httpProbe{words: w.forSize(n), size: n, url: s.url}
		// Warm up: the first answers load the index and render skills.
		warmHTTP := &http.Client{Transport: &http.Transport{}}
		warm, err := p.dial(warmHTTP)
		if err != nil {
			s.stop()
			fail("warm-up", err)
			return r
		}
		for k := range 50 {
			for _, kind := range httpKinds {
				if err := p.send(warm, kind, k+1, k); err != nil {
					s.stop()
					fail("warm-up", fmt.Errorf("%w%s", err, s.note()))
					return r
				}
			}
		}
		warm.Close()
		warmHTTP.CloseIdleConnections()
		rss64 := 0.0
		for _, kind := range httpKinds {
			for _, c := range o.httpClients {
				var onBusy func()
				if c == 64 {
					onBusy = func() {
						if mb, ok := liveRSSMB(s.cmd.Process.Pid); ok {
							rss64 = max(rss64, mb)
						}
					}
				}
				perSec, lat, err := p.cell(kind, c, o.httpDuration, onBusy)
				if err != nil {
					s.stop()
					fail(fmt.Sprintf("run %d, %s with %d clients", run+1, kind, c), fmt.Errorf("%w%s", err, s.note()))
					return r
				}
				cell := cells[fmt.Sprint(kind, c)]
				cell.PerSec = append(cell.PerSec, perSec)
				cell.P50MS = append(cell.P50MS, percentileMS(lat, 0.50))
				cell.P99MS = append(cell.P99MS, percentileMS(lat, 0.99))
				cell.Requests += len(lat)
			}
		}
		if rss64 > 0 {
			r.RSS64MB = append(r.RSS64MB, rss64)
		}
		if mb, ok := liveHWMMB(s.cmd.Process.Pid); ok {
			r.PeakMB = append(r.PeakMB, mb)
		}
		s.stop()
	}
	return r
}

// runHTTP is the -http mode: every size, then the table.
func runHTTP(o *options, w words, tmp string, stdout, stderr io.Writer) int {
	var results []*httpResult
	for _, n := range o.sizes {
		results = append(results, measureHTTP(o, w, n, tmp, stderr))
	}
	var err error
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(results)
	} else {
		err = writeHTTPTable(stdout, o, results)
	}
	failed := false
	for _, r := range results {
		failed = failed || len(r.Errors) > 0
	}
	return reportStatus(err, failed, stderr)
}

// writeHTTPTable prints the medians of every cell and the bar.
func writeHTTPTable(w io.Writer, o *options, results []*httpResult) error {
	for _, r := range results {
		fmt.Fprintf(w, "HTTP: agent3md serve on loopback, %d skills, keep-alive clients (one connection each), %v per cell, medians of %d runs\n",
			r.Size, o.httpDuration, o.runs)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "request\tclients\treq/s\tp50 ms\tp99 ms\trequests\t")
		for _, c := range r.Cells {
			if len(c.PerSec) == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.3f\t%.3f\t%d\t\n", c.Kind, c.Clients, median(c.PerSec), median(c.P50MS), median(c.P99MS), c.Requests)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(r.RSS64MB) > 0 {
			fmt.Fprintf(w, "RSS at 64 clients: %.1f MB (median of runs; peak over a run %.1f MB)\n", median(r.RSS64MB), median(r.PeakMB))
		}
		for _, c := range r.Cells {
			if c.Clients == httpBarClients && len(c.P99MS) > 0 {
				verdict := "ok"
				if median(c.P99MS) >= httpBarP99MS {
					verdict = "OVER"
				}
				fmt.Fprintf(w, "bar: %s p99 at %d clients %.3f ms (under %.0f ms): %s\n", c.Kind, c.Clients, median(c.P99MS), httpBarP99MS, verdict)
			}
		}
		for _, e := range r.Errors {
			fmt.Fprintln(w, "FAILED:", e)
		}
		fmt.Fprintln(w)
	}
	return nil
}
