package httpd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingObserver keeps what it is told; records arrive on a channel,
// since Request runs after the answer has reached the client.
type recordingObserver struct {
	recs  chan RequestRecord
	mu    sync.Mutex
	creds []string // "kind: ok" or "kind: failed"
}

func newRecordingObserver() *recordingObserver {
	return &recordingObserver{recs: make(chan RequestRecord, 64)}
}

func (o *recordingObserver) Request(r RequestRecord) { o.recs <- r }

func (o *recordingObserver) CredentialReload(kind string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.creds = append(o.creds, fmt.Sprintf("%s: %v", kind, err == nil))
}

// next is the record of the request just answered.
func (o *recordingObserver) next(t *testing.T) RequestRecord {
	t.Helper()
	select {
	case r := <-o.recs:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("no request record within 20s")
		return RequestRecord{}
	}
}

// none checks that nothing more was recorded.
func (o *recordingObserver) none(t *testing.T) {
	t.Helper()
	select {
	case r := <-o.recs:
		t.Fatalf("an unexpected record: %+v", r)
	default:
	}
}

// batchEcho is echo that reports several methods, as the adapter does for
// a 2025-03-26 batch.
func batchEcho() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetMCPMethod(r.Context(), "tools/list")
		SetMCPMethod(r.Context(), "tools/call")
		w.Write([]byte(`[{"ok":1},{"ok":2}]`))
	})
}

// TestRequestRecords: each request is told to the Observer once, with
// the agent its path names, its MCP method, status, bytes, and why it was
// turned away, if it was; probes and served scrapes are not told.
func TestRequestRecords(t *testing.T) {
	obs := newRecordingObserver()
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "m 1\n") })
	eps := Endpoints{Agents: map[string]http.Handler{"ada": echo("ada"), "bob": batchEcho()}, Default: "ada"}
	r := start(t, Options{Tokens: []string{tokA}, Observer: obs, Metrics: metrics, MaxBodyBytes: 64}, eps)
	auth := map[string]string{"Authorization": "Bearer " + tokA}
	for _, tt := range []struct {
		name string
		q    req
		want RequestRecord // Duration and BytesOut are checked apart
	}{
		{"default agent", req{path: "/mcp", body: postBody, headers: auth}, RequestRecord{Agent: "ada", Method: "tools/list", Status: 200}},
		{"named agent, trailing slash", req{path: "/mcp/ada/", body: postBody, headers: auth}, RequestRecord{Agent: "ada", Method: "tools/list", Status: 200}},
		{"batch", req{path: "/mcp/bob", body: "[1]", headers: auth}, RequestRecord{Agent: "bob", Method: BatchMethod, Status: 200}},
		{"not an endpoint", req{path: "/mcp/eve", body: postBody, headers: auth}, RequestRecord{Status: 404}},
		{"no token", req{path: "/mcp/ada", body: postBody}, RequestRecord{Agent: "ada", Status: 401, Auth: AuthMissing}},
		{"wrong token", req{path: "/mcp/ada", body: postBody, headers: map[string]string{"Authorization": "Bearer " + tokB}}, RequestRecord{Agent: "ada", Status: 401, Auth: AuthInvalid}},
		{"not bearer", req{path: "/mcp/ada", body: postBody, headers: map[string]string{"Authorization": "Basic " + tokA}}, RequestRecord{Agent: "ada", Status: 401, Auth: AuthMalformed}},
		{"scrape without token", req{method: "GET", path: "/metrics"}, RequestRecord{Status: 401, Auth: AuthMissing}},
		{"foreign Host", req{path: "/mcp", body: postBody, headers: auth, host: "evil.example"}, RequestRecord{Agent: "ada", Status: 403, Rejection: RejectHost}},
		{"foreign Origin", req{path: "/mcp", body: postBody, headers: map[string]string{"Authorization": "Bearer " + tokA, "Origin": "https://evil.example"}}, RequestRecord{Agent: "ada", Status: 403, Rejection: RejectOrigin}},
		{"body too large", req{path: "/mcp", body: strings.Repeat(" ", 65) + postBody, headers: auth}, RequestRecord{Agent: "ada", Status: 413, Rejection: RejectBodyTooLarge}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := r.do(t, nil, tt.q)
			got := obs.next(t)
			if got.Status != resp.StatusCode {
				t.Errorf("recorded status %d, answered %d", got.Status, resp.StatusCode)
			}
			if got.Duration <= 0 || got.BytesOut != int64(len(body)) {
				t.Errorf("duration %s, bytes out %d, want the answer's %d", got.Duration, got.BytesOut, len(body))
			}
			got.Duration, got.BytesOut = 0, 0
			if got != tt.want {
				t.Fatalf("record %+v\nwant   %+v", got, tt.want)
			}
		})
	}
	resp, body := r.do(t, nil, req{method: "GET", path: "/metrics", headers: auth})
	if resp.StatusCode != 200 || body != "m 1\n" {
		t.Fatalf("scrape with the token: %d %q", resp.StatusCode, body)
	}
	r.do(t, nil, req{method: "GET", path: "/healthz"})
	obs.none(t) // neither the served scrape nor the probe
}

// TestRejectionRecords: the 503s of the bounds say which bound, and a
// request that became a stream says so; Load shows what the bounds hold.
func TestRejectionRecords(t *testing.T) {
	obs := newRecordingObserver()
	entered, release := make(chan struct{}, 4), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Stream") != "" && !StartStream(w, r) {
			return
		}
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		entered <- struct{}{}
		<-release
	})
	r := start(t, Options{MaxConcurrent: 1, MaxStreams: 1, Observer: obs}, Endpoints{Agents: map[string]http.Handler{"ada": h}})
	if l := r.srv.Load(); l != (Load{MaxConcurrent: 1, MaxReadingBodies: bodyReadsPerSlot, MaxStreams: 1}) {
		t.Fatalf("idle load %+v", l)
	}
	hr, _ := http.NewRequest("POST", r.url+"/mcp", strings.NewReader(postBody))
	hr.Header.Set("X-Stream", "1")
	stream, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	<-entered
	if l := r.srv.Load(); l.Streams != 1 || l.InFlight != 0 {
		t.Fatalf("load with a stream open: %+v", l)
	}
	runCases(t, r, []statusCase{{name: "second stream", req: req{path: "/mcp", body: postBody, headers: map[string]string{"X-Stream": "1"}}, status: 503}})
	if got := obs.next(t); got.Rejection != RejectStreams || got.Stream {
		t.Fatalf("record of the stream refused: %+v", got)
	}
	// A plain request now holds the one slot (its handler waits too).
	second := make(chan struct{})
	go func() {
		defer close(second)
		if resp, err := http.Post(r.url+"/mcp", "application/json", strings.NewReader(postBody)); err == nil {
			bufio.NewReader(resp.Body).ReadString('\n')
			resp.Body.Close()
		}
	}()
	<-entered
	if l := r.srv.Load(); l.InFlight != 1 || l.Streams != 1 {
		t.Fatalf("load with a stream and a request: %+v", l)
	}
	runCases(t, r, []statusCase{{name: "over the cap", req: req{path: "/mcp", body: postBody}, status: 503}})
	if got := obs.next(t); got.Rejection != RejectConcurrent {
		t.Fatalf("record of the request over the cap: %+v", got)
	}
	close(release)
	stream.Body.Close()
	<-second
	for range 2 {
		if got := obs.next(t); got.Status != 200 || got.Rejection != "" {
			t.Fatalf("record of a request served: %+v", got)
		}
	}
}

// TestCredentialReloadRecords: each credential file Reload reads is told
// with its outcome.
func TestCredentialReloadRecords(t *testing.T) {
	obs := newRecordingObserver()
	file := writeFile(t, "tokens", tokA+"\n")
	certPEM, keyPEM, _ := testCert(t, 1)
	certFile, keyFile := tlsFiles(t, certPEM, keyPEM)
	r := start(t, Options{TokenFile: file, TLSCert: certFile, TLSKey: keyFile, Observer: obs}, oneAgent())
	r.srv.Reload()
	os.WriteFile(file, []byte("short\n"), 0o600)
	os.WriteFile(certFile, []byte("not PEM"), 0o600)
	if err := r.srv.Reload(); err == nil {
		t.Fatal("a bad token file and certificate reloaded")
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	want := []string{KindTokenFile + ": true", KindTLSCert + ": true", KindTokenFile + ": false", KindTLSCert + ": false"}
	if strings.Join(obs.creds, ", ") != strings.Join(want, ", ") {
		t.Fatalf("told %v, want %v", obs.creds, want)
	}
}

// TestMetricsListener: with MetricsAddr the metrics have a loopback
// listener of their own, without a token, and leave the main one; a
// non-loopback MetricsAddr needs MetricsPublic.
func TestMetricsListener(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "m 1\n") })
	r := start(t, Options{Tokens: []string{tokA}, Metrics: metrics, MetricsAddr: "127.0.0.1:0"}, oneAgent())
	if !strings.Contains(r.log.String(), "metrics_addr=127.0.0.1:") {
		t.Errorf("the listening line does not name the metrics address:\n%s", r.log)
	}
	murl := "http://" + r.srv.MetricsAddr().String()
	get := func(url string, hdr map[string]string) (int, string) {
		t.Helper()
		hr, _ := http.NewRequest("GET", url, nil)
		for k, v := range hdr {
			hr.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tt := range []struct {
		name, url string
		hdr       map[string]string
		status    int
	}{
		{"scrape, no token", murl + "/metrics", nil, 200},
		{"anything else", murl + "/mcp", nil, 404},
		{"foreign Origin", murl + "/metrics", map[string]string{"Origin": "https://evil.example"}, 403},
		{"main listener, token", r.url + "/metrics", map[string]string{"Authorization": "Bearer " + tokA}, 404},
	} {
		if got, body := get(tt.url, tt.hdr); got != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, got, body, tt.status)
		}
	}
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		s, err := New(&Options{Addr: "127.0.0.1:0", Metrics: metrics, MetricsAddr: addr, Logger: newTestLogger(io.Discard)}, oneAgent())
		if err != nil {
			t.Fatal(err)
		}
		err = s.Listen()
		if !errors.Is(err, ErrMetricsNotLoopback) || !strings.Contains(err.Error(), "--metrics-public") {
			t.Errorf("MetricsAddr %s: %v, want a refusal naming --metrics-public", addr, err)
		}
		if s.ln != nil || s.metricsLn != nil {
			t.Errorf("MetricsAddr %s: a listener left open after the refusal", addr)
		}
	}
}
