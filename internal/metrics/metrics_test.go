package metrics

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/agent3md/agent3md/internal/httpd"
)

var testOptions = Options{Methods: []string{"initialize", "tools/call", "tools/list"}, Version: "v9.9.9"}

// newTest is a Metrics serving the agents forge and atlas, and their
// reload hooks.
func newTest() (m *Metrics, forge, atlas func(error)) {
	m = New(testOptions)
	return m, m.AddAgent("forge"), m.AddAgent("atlas")
}

// series finds one gathered series: name and its labels as k=v pairs; ok
// is false when no such series exists.
func series(t *testing.T, m *Metrics, name string, labels ...string) (*dto.Metric, bool) {
	t.Helper()
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	next:
		for _, s := range f.GetMetric() {
			have := map[string]string{}
			for _, lp := range s.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			if len(have) != len(labels) {
				continue
			}
			for _, kv := range labels {
				k, v, _ := strings.Cut(kv, "=")
				if have[k] != v {
					continue next
				}
			}
			return s, true
		}
	}
	return nil, false
}

// value is a counter's or gauge's value (0 when absent), or a
// histogram's count.
func value(t *testing.T, m *Metrics, name string, labels ...string) float64 {
	t.Helper()
	s, ok := series(t, m, name, labels...)
	switch {
	case !ok:
		return 0
	case s.Counter != nil:
		return s.Counter.GetValue()
	case s.Gauge != nil:
		return s.Gauge.GetValue()
	case s.Histogram != nil:
		return float64(s.Histogram.GetSampleCount())
	}
	t.Fatalf("%s: not a counter, gauge or histogram", name)
	return 0
}

// TestRequestLabels: each record is counted under labels from the closed
// sets, whatever the client sent.
func TestRequestLabels(t *testing.T) {
	for _, tt := range []struct {
		name          string
		rec           httpd.RequestRecord
		agent, method string
		status        string
		latency       bool
		rejection     string
		auth          string
	}{
		{name: "served", rec: httpd.RequestRecord{Agent: "forge", Method: "tools/call", Status: 200, Duration: time.Millisecond, BytesOut: 10},
			agent: "forge", method: "tools/call", status: "200", latency: true},
		{name: "unknown method", rec: httpd.RequestRecord{Agent: "atlas", Method: "evil/" + strings.Repeat("x", 100), Status: 200},
			agent: "atlas", method: Other, status: "200", latency: true},
		{name: "no message", rec: httpd.RequestRecord{Agent: "atlas", Status: 405, BytesOut: 3},
			agent: "atlas", method: None, status: "405", latency: true},
		{name: "no agent", rec: httpd.RequestRecord{Agent: "", Method: "tools/list", Status: 404},
			agent: None, method: "tools/list", status: "404", latency: true},
		{name: "agent not served", rec: httpd.RequestRecord{Agent: "ghost", Method: "tools/list", Status: 200},
			agent: None, method: "tools/list", status: "200", latency: true},
		{name: "batch", rec: httpd.RequestRecord{Agent: "forge", Method: httpd.BatchMethod, Status: 200},
			agent: "forge", method: "batch", status: "200", latency: true},
		{name: "stream", rec: httpd.RequestRecord{Agent: "forge", Method: "tools/list", Status: 200, Stream: true, Duration: time.Hour},
			agent: "forge", method: "tools/list", status: "200"},
		{name: "busy", rec: httpd.RequestRecord{Agent: "forge", Status: 503, Rejection: httpd.RejectConcurrent},
			agent: "forge", method: None, status: "503", latency: true, rejection: "max_concurrent"},
		{name: "bad token", rec: httpd.RequestRecord{Agent: "forge", Status: 401, Auth: httpd.AuthInvalid},
			agent: "forge", method: None, status: "401", latency: true, auth: "invalid"},
		{name: "status out of range", rec: httpd.RequestRecord{Agent: "forge", Method: "initialize", Status: 999},
			agent: "forge", method: "initialize", status: Other, latency: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, _, _ := newTest()
			m.Request(tt.rec)
			if got := value(t, m, "agent3md_http_requests_total", "agent="+tt.agent, "method="+tt.method, "status="+tt.status); got != 1 {
				t.Fatalf("requests_total{agent=%s,method=%s,status=%s} = %v, want 1", tt.agent, tt.method, tt.status, got)
			}
			if got := value(t, m, "agent3md_http_request_duration_seconds", "agent="+tt.agent, "method="+tt.method); (got == 1) != tt.latency {
				t.Errorf("latency observations %v, want observed: %v", got, tt.latency)
			}
			if got := value(t, m, "agent3md_http_response_bytes_total", "agent="+tt.agent); got != float64(tt.rec.BytesOut) {
				t.Errorf("response bytes %v, want %d", got, tt.rec.BytesOut)
			}
			var rejections, auths []string
			for _, r := range httpd.Rejections {
				rejections = append(rejections, string(r))
			}
			for _, a := range httpd.AuthFailures {
				auths = append(auths, string(a))
			}
			onlyOne(t, m, "agent3md_http_rejections_total", rejections, tt.rejection)
			onlyOne(t, m, "agent3md_http_auth_failures_total", auths, tt.auth)
		})
	}
}

// onlyOne checks that of the series name{reason=…} for each of reasons,
// the one named which (none when "") is 1 and the others 0.
func onlyOne(t *testing.T, m *Metrics, name string, reasons []string, which string) {
	t.Helper()
	for _, r := range reasons {
		want := 0.0
		if r == which {
			want = 1
		}
		if got := value(t, m, name, "reason="+r); got != want {
			t.Errorf("%s{reason=%s} = %v, want %v", name, r, got, want)
		}
	}
}

// TestLabelsBounded: no stream of made-up agents, methods and statuses
// grows the series past the closed sets.
func TestLabelsBounded(t *testing.T) {
	m, _, _ := newTest()
	for i := range 5000 {
		m.Request(httpd.RequestRecord{Agent: fmt.Sprint("agent-", i), Method: fmt.Sprint("method-", i), Status: 200 + i%2})
		m.Request(httpd.RequestRecord{Agent: "forge", Method: fmt.Sprint("m", i), Status: 1000 + i})
	}
	fams, _ := m.reg.Gather()
	for _, f := range fams {
		if f.GetName() == "agent3md_http_requests_total" && len(f.GetMetric()) != 3 {
			t.Fatalf("%d request series after made-up labels, want 3 (none/other/200, none/other/201, forge/other/other)", len(f.GetMetric()))
		}
	}
}

// TestReloadCounts: agent reloads and their failures by agent, with the
// last outcome; credential reloads by credential.
func TestReloadCounts(t *testing.T) {
	m, forge, atlas := newTest()
	if _, ok := series(t, m, "agent3md_agent_reload_failures_total", "agent=atlas"); !ok {
		t.Fatal("the reload failure counter is not there at 0 before any reload")
	}
	forge(nil)
	forge(errors.New("broken"))
	if f := value(t, m, "agent3md_agent_last_reload_failed", "agent=forge"); f != 1 {
		t.Fatalf("last_reload_failed after a failure = %v", f)
	}
	forge(nil)
	atlas(nil)
	for _, c := range []struct {
		name, agent string
		want        float64
	}{
		{"agent3md_agent_reloads_total", "forge", 3}, {"agent3md_agent_reload_failures_total", "forge", 1},
		{"agent3md_agent_last_reload_failed", "forge", 0},
		{"agent3md_agent_reloads_total", "atlas", 1}, {"agent3md_agent_reload_failures_total", "atlas", 0},
	} {
		if got := value(t, m, c.name, "agent="+c.agent); got != c.want {
			t.Errorf("%s{agent=%s} = %v, want %v", c.name, c.agent, got, c.want)
		}
	}
	m.CredentialReload(httpd.KindTokenFile, nil)
	m.CredentialReload(httpd.KindTokenFile, errors.New("a named pipe"))
	m.CredentialReload(httpd.KindTLSCert, nil)
	for _, c := range []struct {
		name, cred string
		want       float64
	}{
		{"agent3md_credential_reloads_total", "tokens", 2}, {"agent3md_credential_reload_failures_total", "tokens", 1},
		{"agent3md_credential_reloads_total", "certificate", 1}, {"agent3md_credential_reload_failures_total", "certificate", 0},
	} {
		if got := value(t, m, c.name, "credential="+c.cred); got != c.want {
			t.Errorf("%s{credential=%s} = %v, want %v", c.name, c.cred, got, c.want)
		}
	}
}

type fakeServer struct {
	load httpd.Load
	cert time.Time
}

func (f *fakeServer) Load() httpd.Load { return f.load }
func (f *fakeServer) CertificateNotAfter() (time.Time, bool) {
	return f.cert, !f.cert.IsZero()
}

// TestWatchServer: the bounds are read at each scrape.
func TestWatchServer(t *testing.T) {
	m, _, _ := newTest()
	fs := &fakeServer{load: httpd.Load{InFlight: 3, MaxConcurrent: 256, ReadingBodies: 2, MaxReadingBodies: 1024, Streams: 7, GetStreams: 3, MaxStreams: 1024}}
	if err := m.WatchServer(fs); err != nil {
		t.Fatal(err)
	}
	if err := m.WatchServer(fs); err == nil {
		t.Fatal("a second WatchServer was accepted")
	}
	if _, ok := series(t, m, "agent3md_tls_certificate_not_after_seconds"); ok {
		t.Fatal("a certificate expiry without TLS")
	}
	fs.load.InFlight, fs.cert = 5, time.Unix(1900000000, 0)
	for name, want := range map[string]float64{
		"agent3md_http_requests_in_flight": 5, "agent3md_http_max_concurrent_requests": 256,
		"agent3md_http_requests_queued": 2, "agent3md_http_max_queued_requests": 1024,
		"agent3md_http_max_listen_streams": 1024, "agent3md_tls_certificate_not_after_seconds": 1900000000,
	} {
		if got := value(t, m, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// Open streams by kind: the GET ones apart from the listen ones, and
	// never a negative count when the two reads disagree.
	for _, tt := range []struct{ streams, get, listen, wantGet float64 }{{7, 3, 4, 3}, {0, 1, 0, 0}} {
		fs.load.Streams, fs.load.GetStreams = int(tt.streams), int(tt.get)
		if got := value(t, m, "agent3md_http_listen_streams_open", "kind=listen"); got != tt.listen {
			t.Errorf("%v streams, %v GET: listen streams = %v, want %v", tt.streams, tt.get, got, tt.listen)
		}
		if got := value(t, m, "agent3md_http_listen_streams_open", "kind=get"); got != tt.wantGet {
			t.Errorf("%v streams, %v GET: GET streams = %v, want %v", tt.streams, tt.get, got, tt.wantGet)
		}
	}
}

// TestHandler: the exposition has the build info, the Go and process
// collectors, and each Metrics its own registry.
func TestHandler(t *testing.T) {
	a, _, _ := newTest()
	b, _, _ := newTest()
	a.Request(httpd.RequestRecord{Agent: "forge", Method: "tools/list", Status: 200})
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`agent3md_build_info{version="v9.9.9"} 1`,
		`agent3md_http_requests_total{agent="forge",method="tools/list",status="200"} 1`,
		`agent3md_http_request_duration_seconds_bucket{agent="forge",method="tools/list",le="5e-05"} 1`,
		"go_goroutines ", "process_resident_memory_bytes ",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("scrape lacks %q", want)
		}
	}
	if got := value(t, b, "agent3md_http_requests_total", "agent=forge", "method=tools/list", "status=200"); got != 0 {
		t.Fatalf("a second Metrics saw the first's request: %v", got)
	}
}

// BenchmarkRequest is the cost serve adds to each request.
func BenchmarkRequest(b *testing.B) {
	m, _, _ := newTest()
	rec := httpd.RequestRecord{Agent: "forge", Method: "tools/call", Status: 200, Duration: 300 * time.Microsecond, BytesOut: 2048}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Request(rec)
		}
	})
}

// TestConcurrentCounts: requests counted from many goroutines while
// scrapes run add up exactly.
func TestConcurrentCounts(t *testing.T) {
	m, _, _ := newTest()
	const goroutines, each = 8, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				m.Request(httpd.RequestRecord{Agent: "forge", Method: "tools/list", Status: 200 + (g+i)%2*303})
				if i%100 == 0 {
					m.reg.Gather()
				}
			}
		}()
	}
	wg.Wait()
	ok := value(t, m, "agent3md_http_requests_total", "agent=forge", "method=tools/list", "status=200")
	busy := value(t, m, "agent3md_http_requests_total", "agent=forge", "method=tools/list", "status=503")
	if ok+busy != goroutines*each || ok != busy {
		t.Fatalf("counted %v 200s and %v 503s, want %d each", ok, busy, goroutines*each/2)
	}
}
