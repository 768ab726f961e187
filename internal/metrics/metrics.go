package metrics

import (
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agent3md/agent3md/internal/httpd"
)

// Label values besides the closed sets' own members.
const (
	// None is the agent of a path that names no served agent, and the
	// method of a request whose message was never read.
	None = "none"
	// Other is the method of a message whose method the server does not
	// serve.
	Other = "other"
)

// Bounds of a scrape: concurrent scrapes past the first few get 503, and
// a gather that takes longer than scrapeTimeout is answered 503 too.
const (
	maxScrapes    = 4
	scrapeTimeout = 10 * time.Second
)

// LatencyBuckets are the request latency histogram's upper bounds, in
// seconds: a cached tools/list answers in tens of microseconds, a route
// on a large agent in milliseconds, a cold first request in seconds.
var LatencyBuckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// Options says what a Metrics labels with. The agent label's values are
// added one by one (AddAgent).
type Options struct {
	// Methods are the MCP methods served (mcp.Server.Methods): the method
	// label's values.
	Methods []string
	// Version is the binary's version, for agent3md_build_info.
	Version string
	// Logger gets scrape errors (default: none logged).
	Logger *slog.Logger
}

// Metrics collects serve's metrics in a registry of its own. It is an
// httpd.Observer; AddAgent gives the hook for mcp.Options.OnReload.
type Metrics struct {
	reg     *prometheus.Registry
	methods map[string]bool
	logger  *slog.Logger
	// agents is the agent label's values, replaced whole by AddAgent so a
	// request reads it with one atomic load.
	agents   atomic.Pointer[map[string]bool]
	agentsMu sync.Mutex // serializes AddAgent

	requests     *prometheus.CounterVec   // agent, method, status
	latency      *prometheus.HistogramVec // agent, method
	answerBytes  *prometheus.CounterVec   // agent
	rejections   *prometheus.CounterVec   // reason
	authFailures *prometheus.CounterVec   // reason
	reloads      *prometheus.CounterVec   // agent
	reloadFails  *prometheus.CounterVec   // agent
	reloadFailed *prometheus.GaugeVec     // agent: 1 while the last reload failed
	credReloads  *prometheus.CounterVec   // credential
	credFails    *prometheus.CounterVec   // credential

	series sync.Map // reqKey → *reqSeries
}

// New makes a server's metrics, every series that can be known in
// advance already at 0 (so an alert on an increase sees the first one).
func New(o Options) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), methods: map[string]bool{}, logger: o.Logger}
	m.agents.Store(&map[string]bool{})
	for _, meth := range o.Methods {
		m.methods[meth] = true
	}
	m.define()
	for _, r := range httpd.Rejections {
		m.rejections.WithLabelValues(string(r))
	}
	for _, r := range httpd.AuthFailures {
		m.authFailures.WithLabelValues(string(r))
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "agent3md_build_info", Help: "Always 1; the version label is the binary's.",
			ConstLabels: prometheus.Labels{"version": o.Version},
		}, func() float64 { return 1 }),
	)
	return m
}

// define creates and registers the metrics counted on events.
func (m *Metrics) define() {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		m.reg.MustRegister(v)
		return v
	}
	m.requests = counter("agent3md_http_requests_total",
		"HTTP requests answered (probes of /healthz and scrapes of /metrics excepted), by agent, MCP method and status.", "agent", "method", "status")
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "agent3md_http_request_duration_seconds",
		Help:    "Time from a request's arrival to the end of its answer, by agent and MCP method; subscriptions/listen streams are left out (their duration is how long the client stayed).",
		Buckets: LatencyBuckets,
	}, []string{"agent", "method"})
	m.reg.MustRegister(m.latency)
	m.answerBytes = counter("agent3md_http_response_bytes_total", "Bytes of answer bodies written, by agent.", "agent")
	m.rejections = counter("agent3md_http_rejections_total",
		"Requests the server turned away itself, by reason: host, origin (403), body_too_large (413), body_timeout (408), body_reads, max_concurrent, max_streams, answer_memory, body_memory (503).", "reason")
	m.authFailures = counter("agent3md_http_auth_failures_total",
		"Requests refused with 401, by reason: missing (no Authorization header), malformed (not one Bearer token), invalid (a token not accepted).", "reason")
	m.reloads = counter("agent3md_agent_reloads_total", "Reloads of an agent whose file changed, successful or not, by agent.", "agent")
	m.reloadFails = counter("agent3md_agent_reload_failures_total", "Reloads that failed (the last good version kept serving), by agent.", "agent")
	m.reloadFailed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "agent3md_agent_last_reload_failed",
		Help: "1 while the agent's most recent reload failed: the version served is older than its file. 0 otherwise.",
	}, []string{"agent"})
	m.reg.MustRegister(m.reloadFailed)
	m.credReloads = counter("agent3md_credential_reloads_total", "Credential reloads on SIGHUP, by credential (tokens, certificate).", "credential")
	m.credFails = counter("agent3md_credential_reload_failures_total", "Credential reloads that failed and kept the credential in use, by credential.", "credential")
}

// statusText is the status label of each status code, so counting a
// request allocates no string.
var statusText = func() (t [600]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

// reqKey is one request series' labels; reqSeries its children, looked
// up once per label set (a sync.Map read is a fraction of the vectors'
// hashing, and the keys come from closed sets, so the map stays small).
type reqKey struct {
	agent, method string
	status        int
}

type reqSeries struct {
	requests prometheus.Counter
	latency  prometheus.Observer
	bytes    prometheus.Counter
}

// AddAgent adds slug to the agent label's values, its reload series at
// 0, and returns the hook that counts its reloads (mcp.Options.OnReload).
func (m *Metrics) AddAgent(slug string) (onReload func(error)) {
	m.agentsMu.Lock()
	next := maps.Clone(*m.agents.Load())
	next[slug] = true
	m.agents.Store(&next)
	m.agentsMu.Unlock()
	m.reloads.WithLabelValues(slug)
	m.reloadFails.WithLabelValues(slug)
	m.reloadFailed.WithLabelValues(slug)
	return func(err error) { m.reloaded(slug, err) }
}

// Request counts one request (httpd.Observer).
func (m *Metrics) Request(r httpd.RequestRecord) {
	agent := r.Agent
	if !(*m.agents.Load())[agent] {
		agent = None
	}
	method := r.Method
	switch {
	case method == "":
		method = None
	case method == httpd.BatchMethod:
	case !m.methods[method]:
		method = Other
	}
	status := r.Status
	if status < 0 || status >= len(statusText) {
		status = -1
	}
	s := m.seriesFor(reqKey{agent, method, status})
	s.requests.Inc()
	if !r.Stream {
		s.latency.Observe(r.Duration.Seconds())
	}
	if r.BytesOut > 0 {
		s.bytes.Add(float64(r.BytesOut))
	}
	if r.Rejection != "" {
		m.rejections.WithLabelValues(string(r.Rejection)).Inc()
	}
	if r.Auth != "" {
		m.authFailures.WithLabelValues(string(r.Auth)).Inc()
	}
}

// seriesFor returns the children of k, made on first use.
func (m *Metrics) seriesFor(k reqKey) *reqSeries {
	if s, ok := m.series.Load(k); ok {
		return s.(*reqSeries)
	}
	status := Other
	if k.status >= 0 {
		status = statusText[k.status]
	}
	s, _ := m.series.LoadOrStore(k, &reqSeries{
		requests: m.requests.WithLabelValues(k.agent, k.method, status),
		latency:  m.latency.WithLabelValues(k.agent, k.method),
		bytes:    m.answerBytes.WithLabelValues(k.agent),
	})
	return s.(*reqSeries)
}

// credentialLabel names each kind of credential file in the credential
// label.
var credentialLabel = map[string]string{
	httpd.KindTokenFile: "tokens",
	httpd.KindTLSCert:   "certificate",
	httpd.KindTLSKey:    "certificate",
}

// CredentialReload counts one credential reload (httpd.Observer).
func (m *Metrics) CredentialReload(kind string, err error) {
	label, ok := credentialLabel[kind]
	if !ok {
		label = Other
	}
	m.credReloads.WithLabelValues(label).Inc()
	if err != nil {
		m.credFails.WithLabelValues(label).Inc()
	}
}

// reloaded counts one reload of agent.
func (m *Metrics) reloaded(agent string, err error) {
	m.reloads.WithLabelValues(agent).Inc()
	failed := 0.0
	if err != nil {
		m.reloadFails.WithLabelValues(agent).Inc()
		failed = 1
	}
	m.reloadFailed.WithLabelValues(agent).Set(failed)
}

// Server is what WatchServer reads at each scrape: *httpd.Server.
type Server interface {
	Load() httpd.Load
	CertificateNotAfter() (time.Time, bool)
}

// WatchServer adds the gauges read from s at each scrape: requests in
// flight and queued, open streams, their bounds, and the certificate's
// expiry. Call it once, with the server the metrics count for.
func (m *Metrics) WatchServer(s Server) error {
	if err := m.reg.Register(&serverCollector{s: s}); err != nil {
		return errors.New("metrics: WatchServer called twice")
	}
	return nil
}

// Handler serves the metrics in Prometheus' exposition formats.
func (m *Metrics) Handler() http.Handler {
	opts := promhttp.HandlerOpts{
		ErrorHandling:       promhttp.ContinueOnError,
		Registry:            m.reg,
		MaxRequestsInFlight: maxScrapes,
		Timeout:             scrapeTimeout,
	}
	if m.logger != nil {
		opts.ErrorLog = slog.NewLogLogger(m.logger.Handler(), slog.LevelWarn)
	}
	return promhttp.HandlerFor(m.reg, opts)
}
