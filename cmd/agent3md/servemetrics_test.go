package main

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The metrics of `agent3md serve` (docs/http.md §13), scraped from the real
// binary after a load run: what it counted must be what was sent.

// sample is one line of a Prometheus text exposition.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

var (
	sampleRE = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
	labelRE  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// parseExposition reads the samples of a text exposition.
func parseExposition(t *testing.T, text string) []sample {
	t.Helper()
	var out []sample
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := sampleRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not an exposition line: %q", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("value of %q: %v", line, err)
		}
		s := sample{name: m[1], labels: map[string]string{}, value: v}
		for _, l := range labelRE.FindAllStringSubmatch(m[2], -1) {
			s.labels[l[1]] = l[2]
		}
		out = append(out, s)
	}
	return out
}

// sum adds the samples named name whose labels include every k=v given.
func sum(samples []sample, name string, kv ...string) float64 {
	total := 0.0
next:
	for _, s := range samples {
		if s.name != name {
			continue
		}
		for _, p := range kv {
			k, v, _ := strings.Cut(p, "=")
			if s.labels[k] != v {
				continue next
			}
		}
		total += s.value
	}
	return total
}

// scrape GETs a metrics URL (with the token when tok is set).
func scrape(t *testing.T, url, tok string) []sample {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d %s", resp.StatusCode, body)
	}
	return parseExposition(t, string(body))
}

// metricsLoad is what a load run sent, tallied by the labels the server
// should count it under.
type metricsLoad struct {
	mu       sync.Mutex
	byStatus map[int]float64
	byMethod map[string]float64 // "method status"
	missing  float64            // sent without a token
	invalid  float64            // sent with a token not accepted
}

// metricsRequest is the k-th request of the run: its path, token, body,
// and the method label it must be counted under.
func metricsRequest(k int, good string) (path, tok, body, method string) {
	msg := func(method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, k, method, params)
	}
	path, tok = "/mcp", good
	switch k % 10 {
	case 0:
		body, method = msg("tools/list", "{}"), "tools/list"
	case 1:
		body, method = msg("tools/call", `{"name":"route_skill","arguments":{"text":"review my diff"}}`), "tools/call"
	case 2:
		body, method = msg("resources/list", "{}"), "resources/list"
	case 3:
		body, method = msg("prompts/list", "{}"), "prompts/list"
	case 4:
		body, method = msg("made/up-"+strconv.Itoa(k), "{}"), "other" // answered -32601 with 200 in the handshake era
	case 5:
		body, method = "["+msg("ping", "{}")+","+msg("tools/list", "{}")+"]", "batch"
	case 6:
		body, method, tok = msg("tools/list", "{}"), "none", "wrong-0123456789abcdef"
	case 7:
		body, method, tok = msg("tools/list", "{}"), "none", ""
	case 8:
		path, body, method = "/mcp/nope", msg("tools/list", "{}"), "none"
	default:
		body, method = msg("ping", "{}"), "ping"
	}
	return path, tok, body, method
}

// run sends n requests from each of c clients and tallies their answers.
func (l *metricsLoad) run(t *testing.T, base, good string, c, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, c)
	for i := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			for j := range n {
				path, tok, body, method := metricsRequest(i*n+j, good)
				req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("MCP-Protocol-Version", "2025-03-26")
				if tok != "" {
					req.Header.Set("Authorization", "Bearer "+tok)
				}
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				l.mu.Lock()
				l.byStatus[resp.StatusCode]++
				l.byMethod[fmt.Sprintf("%s %d", method, resp.StatusCode)]++
				switch {
				case resp.StatusCode == http.StatusUnauthorized && tok == "":
					l.missing++
				case resp.StatusCode == http.StatusUnauthorized:
					l.invalid++
				}
				l.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a request was lost: %v", err)
	}
}

// check compares a scrape with the tally; it returns the differences.
func (l *metricsLoad) check(s []sample) []string {
	var diff []string
	want := func(what string, got, sent float64) {
		if got != sent {
			diff = append(diff, fmt.Sprintf("%s: counted %v, sent %v", what, got, sent))
		}
	}
	total := 0.0
	for status, n := range l.byStatus {
		want(fmt.Sprintf("requests with status %d", status), sum(s, "agent3md_http_requests_total", "status="+strconv.Itoa(status)), n)
		total += n
	}
	want("requests", sum(s, "agent3md_http_requests_total"), total)
	for key, n := range l.byMethod {
		method, status, _ := strings.Cut(key, " ")
		want("requests "+key, sum(s, "agent3md_http_requests_total", "method="+method, "status="+status), n)
	}
	want("auth failures (missing)", sum(s, "agent3md_http_auth_failures_total", "reason=missing"), l.missing)
	want("auth failures (invalid)", sum(s, "agent3md_http_auth_failures_total", "reason=invalid"), l.invalid)
	want("latency observations", sum(s, "agent3md_http_request_duration_seconds_count"), total)
	want("404s without an agent", sum(s, "agent3md_http_requests_total", "agent=none"), l.byStatus[http.StatusNotFound])
	return diff
}

// scrapeUntil scrapes until check finds no difference (a request is
// counted as its answer ends, so the last ones may land just after the
// client read them), for at most 20 s.
func scrapeUntil(t *testing.T, url, tok string, check func([]sample) []string) []sample {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := scrape(t, url, tok)
		diff := check(s)
		if len(diff) == 0 {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the metrics do not add up:\n%s", strings.Join(diff, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeMetrics: after 8 clients send 1,200 requests of every kind —
// methods served and made up, batches, a wrong token, no token, a path
// that is no endpoint — /metrics (behind the token) counts each by status
// and method, each 401 by reason, and not its own scrapes; an edit of the
// agent file counts one reload, a broken edit one failure; the bounds are
// there with the flags' values.
func TestServeMetrics(t *testing.T) {
	const good = "alpha-0123456789abcdef"
	dir := t.TempDir()
	agent := filepath.Join(dir, "load.3md")
	writeByRename(t, agent, loadAgent("ALPHA"))
	s := startServe(t, "--token-file", writeTokenFile(t, good), "--max-concurrent", "64", "--max-streams", "9", agent)
	base := "http://" + s.addr
	load := &metricsLoad{byStatus: map[int]float64{}, byMethod: map[string]float64{}}
	load.run(t, base, good, 8, 150)
	if load.byStatus[200] == 0 || load.missing == 0 || load.invalid == 0 || load.byStatus[404] == 0 {
		t.Fatalf("the run did not send every kind: %v", load.byStatus)
	}
	samples := scrapeUntil(t, base+"/metrics", good, load.check)
	again := scrape(t, base+"/metrics", good)
	if d := load.check(again); len(d) > 0 {
		t.Fatalf("a scrape was counted as a request:\n%s", strings.Join(d, "\n"))
	}
	for name, want := range map[string]float64{
		"agent3md_http_max_concurrent_requests": 64, "agent3md_http_max_queued_requests": 256,
		"agent3md_http_max_listen_streams": 9, "agent3md_http_requests_in_flight": 0,
		"agent3md_agent_reloads_total": 0,
	} {
		if got := sum(samples, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if sum(samples, "agent3md_http_response_bytes_total", "agent=loadtest") == 0 || sum(samples, "process_resident_memory_bytes") == 0 {
		t.Error("no answer bytes or no process metrics")
	}

	writeByRename(t, agent, loadAgent("BRAVO"))
	waitLog(t, s, `msg="agent reloaded"`, 1, 30*time.Second)
	writeByRename(t, agent, "---\n3md: 1.0\n---\n@plane z=1 label=\"x\" kind=skill triggers=\"a\" inputs=\"\"\"\n")
	waitLog(t, s, "last good version keeps serving", 1, 30*time.Second)
	scrapeUntil(t, base+"/metrics", good, func(s []sample) []string {
		var diff []string
		for name, want := range map[string]float64{
			"agent3md_agent_reloads_total": 2, "agent3md_agent_reload_failures_total": 1, "agent3md_agent_last_reload_failed": 1,
		} {
			if got := sum(s, name, "agent=loadtest"); got != want {
				diff = append(diff, fmt.Sprintf("%s = %v, want %v", name, got, want))
			}
		}
		return diff
	})
}

// TestServeMetricsAddr: --metrics-addr serves the metrics on a loopback
// listener of their own without the token, and only there; a
// non-loopback one needs --metrics-public.
func TestServeMetricsAddr(t *testing.T) {
	const good = "alpha-0123456789abcdef"
	s := startServe(t, "--token-file", writeTokenFile(t, good), "--metrics-addr", "127.0.0.1:0", devtools)
	m := regexp.MustCompile(`metrics_addr=(\S+)`).FindStringSubmatch(s.log())
	if m == nil {
		t.Fatalf("no metrics_addr in the listening line:\n%s", s.log())
	}
	if got := tokenStatus(t, "http://"+s.addr+"/mcp", "wrong-0123456789abcdef"); got != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", got)
	}
	scrapeUntil(t, "http://"+m[1]+"/metrics", "", func(s []sample) []string {
		if got := sum(s, "agent3md_http_auth_failures_total", "reason=invalid"); got != 1 {
			return []string{fmt.Sprintf("auth failures %v, want 1", got)}
		}
		return nil
	})
	req, _ := http.NewRequest(http.MethodGet, "http://"+s.addr+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+good)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on --addr with --metrics-addr set: %d, want 404", resp.StatusCode)
	}
	code, stderr := runServeToExit(t, 30*time.Second, "--metrics-addr", "0.0.0.0:0", devtools)
	if code != exitUsage || !strings.Contains(stderr, "is not loopback") || !strings.Contains(stderr, "--metrics-public") {
		t.Fatalf("non-loopback --metrics-addr: exit %d\n%s", code, stderr)
	}
}
