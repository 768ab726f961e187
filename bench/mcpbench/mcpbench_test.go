package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeEnv names the environment variable that turns the test binary into a
// fake MCP server; its value picks the misbehaviour.
const fakeEnv = "MCPBENCH_FAKE_SERVER"

func TestMain(m *testing.M) {
	if status, ok := runAsFloor(); ok {
		os.Exit(status)
	}
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeServer(mode, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// fakeServer answers initialize and route_skill the way agent3md does, or
// misbehaves as mode says, and returns its exit status.
func fakeServer(mode string, in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	routed := false // mode "settle": ping fails until a tool was called
	for sc.Scan() {
		var req struct {
			ID     *int   `json:"id"`
			Method string `json:"method"`
			Params struct {
				Arguments struct {
					Text string `json:"text"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		switch {
		case mode == "hang":
			continue
		case mode == "garbage":
			fmt.Fprintln(out, "this is not json")
			continue
		case mode == "notify":
			fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
			fakeAnswer(out, *req.ID, req.Method, req.Params.Arguments.Text)
			continue
		case req.Method == "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":%q,"capabilities":{"tools":{}}}}`+"\n", *req.ID, legacyVersion)
		case req.Method == "ping" && mode == "settle" && !routed:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32603,"message":"pinged before any route"}}`+"\n", *req.ID)
		case req.Method == "ping":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", *req.ID)
		case req.Method == "resources/read":
			fakeRead(out, *req.ID)
		case mode == "toolerror":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"boom"}],"isError":true}}`+"\n", *req.ID)
		default:
			routed = true
			text := "no skill matched"
			if strings.Contains(req.Params.Arguments.Text, "search") {
				text = "search-report  (score 1; matched: search)"
			}
			b, _ := json.Marshal(text)
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%s}]}}`+"\n", *req.ID, b)
		}
	}
	switch mode {
	case "exit1":
		return 1
	case "linger":
		time.Sleep(time.Minute)
	}
	return 0
}

// fakeReadEnv names the file whose text the fake server answers
// resources/read with.
const fakeReadEnv = "MCPBENCH_FAKE_READ"

// fakeRead answers resources/read with the text of $MCPBENCH_FAKE_READ.
func fakeRead(out io.Writer, id int) {
	text, _ := os.ReadFile(os.Getenv(fakeReadEnv))
	b, _ := json.Marshal(string(text))
	fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{"contents":[{"uri":"skill://x","text":%s}]}}`+"\n", id, b)
}

// fakeAnswer answers a request the way the "ok" mode does.
func fakeAnswer(out io.Writer, id int, method, text string) {
	switch method {
	case "initialize":
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":%q,"capabilities":{"tools":{}}}}`+"\n", id, legacyVersion)
	case "resources/read":
		fakeRead(out, id)
	default:
		b, _ := json.Marshal("search-report  (score 1; matched: " + text + ")")
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%s}]}}`+"\n", id, b)
	}
}

func testProbe(t *testing.T, mode string) *probe {
	t.Setenv(fakeEnv, mode)
	return &probe{
		bin: os.Args[0], agent: "unused.3md", timeout: 10 * time.Second, exitWait: 10 * time.Second,
		pipeline: true, requests: 50,
		words: words{Verbs: []string{"search", "render"}, Nouns: []string{"report"}},
	}
}

func TestProbeAgainstFakeServers(t *testing.T) {
	tests := []struct {
		mode    string
		wantErr string // "" = success
	}{
		{"ok", ""},
		{"hang", "server hung"},
		{"garbage", "not a JSON-RPC object"},
		{"toolerror", "tool error: boom"},
		{"exit1", "exited badly"},
		{"linger", "did not exit within"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			p := testProbe(t, tt.mode)
			// Generous bounds elsewhere keep a loaded machine from failing
			// the good cases; the bad ones are cut short here.
			switch tt.mode {
			case "hang":
				p.timeout = 300 * time.Millisecond
			case "linger":
				p.exitWait = 300 * time.Millisecond
			}
			_, err := p.firstRoute(t.TempDir(), 0)
			if !matches(err, tt.wantErr) {
				t.Fatalf("firstRoute: err = %v, want %q", err, tt.wantErr)
			}
			s, err := p.serve(t.TempDir(), 0)
			if !matches(err, tt.wantErr) {
				t.Fatalf("serve: err = %v, want %q", err, tt.wantErr)
			}
			if err == nil && (s.routesPerSec <= 0 || s.initMS <= 0 || s.misses != p.requests/2) {
				t.Errorf("serve = %+v, want positive rates and %d misses (every other request names render)", s, p.requests/2)
			}
		})
	}
}

func matches(err error, want string) bool {
	if want == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), want)
}

func TestWordsForSize(t *testing.T) {
	w := words{Verbs: []string{"a", "b", "c"}, Nouns: []string{"x", "y", "z"}}
	tests := []struct {
		n            int
		verbs, nouns int
	}{
		{1, 1, 1}, {3, 3, 1}, {4, 3, 2}, {6, 3, 2}, {7, 3, 3}, {1000, 3, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			got := w.forSize(tt.n)
			if len(got.Verbs) != tt.verbs || len(got.Nouns) != tt.nouns {
				t.Errorf("forSize(%d) = %d verbs, %d nouns; want %d, %d", tt.n, len(got.Verbs), len(got.Nouns), tt.verbs, tt.nouns)
			}
		})
	}
}

func TestWordsTextCoversGrid(t *testing.T) {
	w := words{Verbs: []string{"a", "b", "c", "d"}, Nouns: []string{"x", "y"}}
	seen := map[string]bool{}
	for k := 0; k < 8; k++ {
		seen[w.text(k)] = true
	}
	if len(seen) != 8 {
		t.Errorf("8 consecutive requests gave %d distinct texts, want all 8 verb × noun pairs", len(seen))
	}
	if got := w.text(0); got != "please a the latest x for the team" {
		t.Errorf("text(0) = %q", got)
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{[]float64{5}, 5}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tt := range tests {
		if got := median(tt.in); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestCheckBars(t *testing.T) {
	tests := []struct {
		name string
		r    sizeResult
		want map[string]bool // metric -> ok
	}{
		{"small meets", sizeResult{Size: 10, InitMS: []float64{5}, RSSMB: []float64{20}, RouteRSSMB: []float64{51}},
			map[string]bool{"initMS": true, "rssMB": true, "routeRSSMB": false}},
		{"4000 at the limit and over", sizeResult{Size: 4000, InitMS: []float64{10}, RouteWarmMS: []float64{41}},
			map[string]bool{"initMS": true, "routeWarmMS": false}},
		{"100000 has no init bar", sizeResult{Size: 100000, InitMS: []float64{900}, RouteWarmMS: []float64{400}, RSSMB: []float64{250}},
			map[string]bool{"routeWarmMS": true, "rssMB": false}},
		{"beyond 100000 no bars", sizeResult{Size: 200000, RouteWarmMS: []float64{1}}, map[string]bool{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]bool{}
			for _, c := range checkBars(&tt.r) {
				got[c.Metric] = c.OK
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("checkBars = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseFlagsRejects(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-sizes", "10,abc"}, "not a positive skill count"},
		{[]string{"-sizes", "0"}, "not a positive skill count"},
		{[]string{"-runs", "0"}, "at least 1"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := parseFlags(tt.args, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseFlags(%q) err = %v, want %q", tt.args, err, tt.want)
			}
		})
	}
}
