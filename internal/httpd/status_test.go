package httpd

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// statusCase is one request and what must come back.
type statusCase struct {
	name       string
	req        req
	status     int
	header     map[string]string // exact values
	bodyHas    []string
	bodyHasNot []string
}

func runCases(t *testing.T, r *running, cases []statusCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := r.do(t, nil, tt.req)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.status, body)
			}
			for k, v := range tt.header {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			for _, s := range tt.bodyHas {
				if !strings.Contains(body, s) {
					t.Errorf("body %s lacks %q", body, s)
				}
			}
			for _, s := range tt.bodyHasNot {
				if strings.Contains(body, s) {
					t.Errorf("body %s has %q", body, s)
				}
			}
			if resp.StatusCode >= 400 {
				checkRejection(t, body)
			}
		})
	}
}

// checkRejection: every rejection is an id-less JSON-RPC error.
func checkRejection(t *testing.T, body string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("rejection body is not JSON: %v: %s", err, body)
	}
	if m["jsonrpc"] != "2.0" || m["error"] == nil {
		t.Errorf("rejection body is not a JSON-RPC error: %s", body)
	}
	if _, has := m["id"]; has {
		t.Errorf("rejection body has an id: %s", body)
	}
}

const postBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

func TestNoTokenOnLoopback(t *testing.T) {
	r := start(t, Options{}, oneAgent())
	runCases(t, r, []statusCase{
		{name: "post /mcp", req: req{path: "/mcp", body: postBody}, status: 200, bodyHas: []string{`"agent":"ada"`, `"bytes":46`}},
		{name: "post /mcp/ada", req: req{path: "/mcp/ada", body: postBody}, status: 200, bodyHas: []string{`"agent":"ada"`}},
		{name: "trailing slash", req: req{path: "/mcp/", body: postBody}, status: 200},
		{name: "get is 405", req: req{method: "GET", path: "/mcp"}, status: 405, header: map[string]string{"Allow": "POST"}},
		{name: "delete is 405", req: req{method: "DELETE", path: "/mcp"}, status: 405, header: map[string]string{"Allow": "POST"}},
		{name: "unknown path", req: req{path: "/nope", body: postBody}, status: 404, bodyHas: []string{`"endpoints":["/mcp","/mcp/ada"]`}},
		{name: "unknown agent", req: req{path: "/mcp/bob", body: postBody}, status: 404, bodyHas: []string{"/mcp/ada"}},
		{name: "healthz", req: req{method: "GET", path: "/healthz"}, status: 200, bodyHas: []string{`{"status":"ok"}`}, bodyHasNot: []string{"ada"}},
	})
}

func TestBearerTokens(t *testing.T) {
	file := writeFile(t, "tokens", "# team tokens\n\n  "+tokA+"  \n")
	r := start(t, Options{TokenFile: file, Tokens: []string{tokB}}, oneAgent())
	challenge := `Bearer realm="agent3md"`
	invalid := `Bearer realm="agent3md", error="invalid_token", error_description="the bearer token is not accepted"`
	auth := func(v string) map[string]string { return map[string]string{"Authorization": v} }
	runCases(t, r, []statusCase{
		{name: "missing", req: req{path: "/mcp", body: postBody}, status: 401, header: map[string]string{"WWW-Authenticate": challenge}},
		{name: "wrong", req: req{path: "/mcp", body: postBody, headers: auth("Bearer " + strings.Repeat("x", 22))}, status: 401, header: map[string]string{"WWW-Authenticate": invalid}},
		{name: "prefix of a token", req: req{path: "/mcp", body: postBody, headers: auth("Bearer " + tokA[:len(tokA)-1])}, status: 401},
		{name: "token plus a byte", req: req{path: "/mcp", body: postBody, headers: auth("Bearer " + tokA + "x")}, status: 401},
		{name: "empty bearer", req: req{path: "/mcp", body: postBody, headers: auth("Bearer ")}, status: 401, header: map[string]string{"WWW-Authenticate": invalid}},
		{name: "basic scheme", req: req{path: "/mcp", body: postBody, headers: auth("Basic " + tokA)}, status: 401, header: map[string]string{"WWW-Authenticate": invalid}},
		{name: "token of the file", req: req{path: "/mcp", body: postBody, headers: auth("Bearer " + tokA)}, status: 200},
		{name: "token given directly", req: req{path: "/mcp", body: postBody, headers: auth("Bearer " + tokB)}, status: 200},
		{name: "scheme any case", req: req{path: "/mcp", body: postBody, headers: auth("bearer  " + tokB)}, status: 200},
		{name: "healthz needs none", req: req{method: "GET", path: "/healthz"}, status: 200, bodyHas: []string{`"ok"`}},
		{name: "404 hides endpoints from strangers", req: req{path: "/nope", body: postBody}, status: 401, bodyHasNot: []string{"ada"}},
		{name: "404 with a token", req: req{path: "/nope", body: postBody, headers: auth("Bearer " + tokA)}, status: 404, bodyHas: []string{"/mcp/ada"}},
	})
}

func TestOriginAndHost(t *testing.T) {
	r := start(t, Options{
		AllowOrigins: []string{"HTTPS://App.example.com/"},
		AllowHosts:   []string{"mcp.example.com"},
	}, oneAgent())
	origin := func(v string) map[string]string { return map[string]string{"Origin": v} }
	runCases(t, r, []statusCase{
		{name: "no origin", req: req{path: "/mcp", body: postBody}, status: 200},
		{name: "foreign origin", req: req{path: "/mcp", body: postBody, headers: origin("http://evil.example.com")}, status: 403, bodyHas: []string{"Origin"}},
		{name: "opaque origin", req: req{path: "/mcp", body: postBody, headers: origin("null")}, status: 403},
		{name: "file origin", req: req{path: "/mcp", body: postBody, headers: origin("file://")}, status: 403},
		{name: "localhost origin", req: req{path: "/mcp", body: postBody, headers: origin("http://localhost:3000")}, status: 200},
		{name: "127 origin https", req: req{path: "/mcp", body: postBody, headers: origin("https://127.0.0.1")}, status: 200},
		{name: "ipv6 origin", req: req{path: "/mcp", body: postBody, headers: origin("http://[::1]:8080")}, status: 200},
		{name: "listed origin", req: req{path: "/mcp", body: postBody, headers: origin("https://app.example.com")}, status: 200},
		{name: "listed origin other scheme", req: req{path: "/mcp", body: postBody, headers: origin("http://app.example.com")}, status: 403},
		{name: "localhost lookalike", req: req{path: "/mcp", body: postBody, headers: origin("http://localhost.evil.example")}, status: 403},
		// The conformance suite's dns-rebinding-protection probe.
		{name: "rebinding host and origin", req: req{path: "/mcp", body: postBody, host: "evil.example.com", headers: origin("http://evil.example.com")}, status: 403},
		{name: "rebinding host alone", req: req{path: "/mcp", body: postBody, host: "evil.example.com:8765"}, status: 403, bodyHas: []string{"Host"}},
		{name: "host localhost any port", req: req{path: "/mcp", body: postBody, host: "localhost:1"}, status: 200},
		{name: "host ipv6", req: req{path: "/mcp", body: postBody, host: "[::1]:8765"}, status: 200},
		{name: "host listed", req: req{path: "/mcp", body: postBody, host: "MCP.example.com:443"}, status: 200},
		{name: "healthz ignores host", req: req{method: "GET", path: "/healthz", host: "evil.example.com"}, status: 200},
	})
}

func TestAnyOrigin(t *testing.T) {
	r := start(t, Options{AllowOrigins: []string{"*"}}, oneAgent())
	runCases(t, r, []statusCase{
		{name: "any origin", req: req{path: "/mcp", body: postBody, headers: map[string]string{"Origin": "https://elsewhere.example"}}, status: 200},
		{name: "host still checked", req: req{path: "/mcp", body: postBody, host: "evil.example.com"}, status: 403},
	})
}

func TestBodyLimit(t *testing.T) {
	const max = 64
	r := start(t, Options{MaxBodyBytes: max}, oneAgent())
	runCases(t, r, []statusCase{
		{name: "at the limit", req: req{path: "/mcp", body: strings.Repeat("a", max)}, status: 200, bodyHas: []string{`"bytes":64`}},
		{name: "one past", req: req{path: "/mcp", body: strings.Repeat("a", max+1)}, status: 413, bodyHas: []string{"64 bytes", "--max-body-bytes"}},
	})
	// Without Content-Length (chunked), the limit holds while reading.
	for _, n := range []int{max, max + 1, 10 * max} {
		hr, _ := http.NewRequest("POST", r.url+"/mcp", io.MultiReader(strings.NewReader(strings.Repeat("b", n))))
		hr.ContentLength = -1
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := 200
		if n > max {
			want = 413
		}
		if resp.StatusCode != want {
			t.Errorf("chunked %d bytes: status %d, want %d", n, resp.StatusCode, want)
		}
	}
}

func TestRoutingSeveralAgents(t *testing.T) {
	two := map[string]http.Handler{"ada": echo("ada"), "bob": echo("bob")}
	t.Run("no default", func(t *testing.T) {
		r := start(t, Options{}, Endpoints{Agents: two})
		runCases(t, r, []statusCase{
			{name: "ada", req: req{path: "/mcp/ada", body: postBody}, status: 200, bodyHas: []string{`"ada"`}},
			{name: "bob", req: req{path: "/mcp/bob", body: postBody}, status: 200, bodyHas: []string{`"bob"`}},
			{name: "no /mcp", req: req{path: "/mcp", body: postBody}, status: 404, bodyHas: []string{`"endpoints":["/mcp/ada","/mcp/bob"]`}},
			{name: "nested", req: req{path: "/mcp/ada/x", body: postBody}, status: 404},
		})
	})
	t.Run("default", func(t *testing.T) {
		r := start(t, Options{}, Endpoints{Agents: two, Default: "bob"})
		runCases(t, r, []statusCase{
			{name: "/mcp is bob", req: req{path: "/mcp", body: postBody}, status: 200, bodyHas: []string{`"bob"`}},
		})
	})
}

func TestEndpointsChecked(t *testing.T) {
	cases := []struct {
		name string
		eps  Endpoints
		want string
	}{
		{"none", Endpoints{}, "no agent"},
		{"slash in slug", Endpoints{Agents: map[string]http.Handler{"a/b": echo("a")}}, `"a/b"`},
		{"empty slug", Endpoints{Agents: map[string]http.Handler{"": echo("a")}}, `""`},
		{"nil handler", Endpoints{Agents: map[string]http.Handler{"a": nil}}, `"a"`},
		{"unknown default", Endpoints{Agents: map[string]http.Handler{"a": echo("a")}, Default: "z"}, `default agent "z" is not served; served: a`},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(nil, tt.eps)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestConcurrencyCap(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(started) })
		<-release
		w.Write([]byte("done"))
	})
	r := start(t, Options{MaxConcurrent: 1}, Endpoints{Agents: map[string]http.Handler{"ada": slow}})
	first := make(chan int, 1)
	go func() {
		resp, err := http.Post(r.url+"/mcp", "application/json", strings.NewReader(postBody))
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	<-started
	runCases(t, r, []statusCase{
		{name: "over the cap", req: req{path: "/mcp", body: postBody}, status: 503, header: map[string]string{"Retry-After": "1"}, bodyHas: []string{"--max-concurrent"}},
		{name: "healthz not capped", req: req{method: "GET", path: "/healthz"}, status: 200},
	})
	close(release)
	if got := <-first; got != 200 {
		t.Fatalf("the request holding the slot got %d, want 200", got)
	}
	runCases(t, r, []statusCase{{name: "slot free again", req: req{path: "/mcp", body: postBody}, status: 200}})
}

// A client that sends half a body and stalls gets 408 once ReadTimeout
// passes, and its slot back.
func TestReadTimeout(t *testing.T) {
	r := start(t, Options{ReadTimeout: 50 * time.Millisecond}, oneAgent())
	conn, err := net.Dial("tcp", r.srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second)) // a hang fails, not blocks
	io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\nabcde")
	b, _ := io.ReadAll(conn)
	if !strings.HasPrefix(string(b), "HTTP/1.1 408 ") {
		t.Fatalf("got %q, want a 408", b)
	}
}

// The read deadline is lifted once the body is in: a handler running
// longer than ReadTimeout keeps its context.
func TestReadTimeoutSparesLongHandlers(t *testing.T) {
	long := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		if err := ExtendWriteDeadline(w, 0); err != nil {
			t.Errorf("ExtendWriteDeadline: %v", err)
		}
		select {
		case <-r.Context().Done():
			http.Error(w, "context cancelled", 500)
		case <-time.After(200 * time.Millisecond):
			w.Write([]byte("alive"))
		}
	})
	r := start(t, Options{ReadTimeout: 20 * time.Millisecond}, Endpoints{Agents: map[string]http.Handler{"a": long}})
	runCases(t, r, []statusCase{{name: "long", req: req{path: "/mcp", body: postBody}, status: 200, bodyHas: []string{"alive"}}})
}

// The Host rule follows the connection, not the bound address: on
// 0.0.0.0 a request over loopback is checked, one over another interface
// is not (unless AllowHosts is set).
func TestHostRuleFollowsConnection(t *testing.T) {
	ip := nonLoopbackIP(t)
	r := start(t, Options{Addr: "0.0.0.0:0", Tokens: []string{tokA}}, oneAgent())
	_, port, _ := net.SplitHostPort(r.srv.Addr().String())
	auth := map[string]string{"Authorization": "Bearer " + tokA}
	for _, tt := range []struct {
		name, ip string
		want     int
	}{
		{"over loopback", "127.0.0.1", 403},
		{"over " + ip, ip, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rr := *r
			rr.url = "http://" + net.JoinHostPort(tt.ip, port)
			resp, body := rr.do(t, nil, req{path: "/mcp", body: postBody, host: "evil.example.com", headers: auth})
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
		})
	}
}

// nonLoopbackIP is an IPv4 address of this machine that is not loopback.
func nonLoopbackIP(t *testing.T) string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address on this machine")
	return ""
}

// WriteTimeout bounds each answer, and a handler that streams can push it
// forward with ExtendWriteDeadline.
func TestWriteTimeoutPerRequest(t *testing.T) {
	const wt = 20 * time.Millisecond
	late := func(extend bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if extend {
				if err := ExtendWriteDeadline(w, time.Minute); err != nil {
					t.Errorf("ExtendWriteDeadline: %v", err)
				}
			}
			<-time.After(10 * wt)
			w.Write([]byte("late answer"))
		})
	}
	r := start(t, Options{WriteTimeout: wt}, Endpoints{Agents: map[string]http.Handler{
		"plain": late(false), "stream": late(true),
	}})
	resp, err := http.Post(r.url+"/mcp/plain", "application/json", strings.NewReader(postBody))
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) == "late answer" {
			t.Fatal("an answer written after WriteTimeout arrived")
		}
	}
	runCases(t, r, []statusCase{{name: "extended", req: req{path: "/mcp/stream", body: postBody}, status: 200, bodyHas: []string{"late answer"}}})
}

func TestEmptyStaticTokenIgnored(t *testing.T) {
	s, err := New(&Options{Tokens: []string{"", "  "}}, oneAgent())
	if err != nil || s.tokens.required {
		t.Fatalf("New: %v, required %v; want no error and no auth", err, s.tokens.required)
	}
}

// TestSlowBodiesHoldNoSlot: clients that send part of a body and stall
// do not hold --max-concurrent slots, so with MaxConcurrent 1 an honest
// request is still served while one trickles; bodies being read have
// their own bound (bodyReadsPerSlot per slot), past which the answer is
// 503 saying so.
func TestSlowBodiesHoldNoSlot(t *testing.T) {
	r := start(t, Options{MaxConcurrent: 1}, oneAgent())
	stall := func() net.Conn {
		conn, err := net.Dial("tcp", r.srv.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
		return conn
	}
	// waitReading waits until n bodies are being read.
	waitReading := func(n int) {
		deadline := time.Now().Add(10 * time.Second)
		for len(r.srv.reading) != n {
			if time.Now().After(deadline) {
				t.Fatalf("%d bodies being read, want %d", len(r.srv.reading), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	stall()
	waitReading(1)
	runCases(t, r, []statusCase{{name: "served beside a trickling body", req: req{path: "/mcp", body: postBody}, status: 200}})
	for i := 1; i < bodyReadsPerSlot; i++ {
		stall()
	}
	waitReading(bodyReadsPerSlot)
	runCases(t, r, []statusCase{{name: "past the bodies being read", req: req{path: "/mcp", body: postBody}, status: 503,
		header: map[string]string{"Retry-After": "1"}, bodyHas: []string{"request bodies already being read", "--max-concurrent"}}})
}
