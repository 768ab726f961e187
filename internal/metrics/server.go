package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// The kind label's values of agent3md_http_listen_streams_open.
const (
	StreamListen = "listen"
	StreamGet    = "get"
)

// serverCollector reads the server's bounds at scrape time: nothing is
// counted per request for them.
type serverCollector struct{ s Server }

var (
	inFlightDesc = prometheus.NewDesc("agent3md_http_requests_in_flight",
		"Requests holding one of the --max-concurrent slots.", nil, nil)
	maxConcurrentDesc = prometheus.NewDesc("agent3md_http_max_concurrent_requests",
		"The --max-concurrent bound.", nil, nil)
	queuedDesc = prometheus.NewDesc("agent3md_http_requests_queued",
		"Requests admitted and reading their body before they take a slot (the queue in front of --max-concurrent).", nil, nil)
	maxQueuedDesc = prometheus.NewDesc("agent3md_http_max_queued_requests",
		"The bound on bodies being read at once (4 per --max-concurrent slot).", nil, nil)
	streamsDesc = prometheus.NewDesc("agent3md_http_listen_streams_open",
		"Open event streams held against --max-streams, by kind: listen (a 2026-07-28 client's subscriptions/listen) or get (a handshake-era client's GET stream of change notifications).", []string{"kind"}, nil)
	maxStreamsDesc = prometheus.NewDesc("agent3md_http_max_listen_streams",
		"The --max-streams bound.", nil, nil)
	certDesc = prometheus.NewDesc("agent3md_tls_certificate_not_after_seconds",
		"Expiry of the TLS certificate being served, in seconds since the Unix epoch (absent without TLS).", nil, nil)
)

func (c *serverCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{inFlightDesc, maxConcurrentDesc, queuedDesc, maxQueuedDesc, streamsDesc, maxStreamsDesc, certDesc} {
		ch <- d
	}
}

func (c *serverCollector) Collect(ch chan<- prometheus.Metric) {
	l := c.s.Load()
	for _, g := range []struct {
		d *prometheus.Desc
		v int
	}{
		{inFlightDesc, l.InFlight}, {maxConcurrentDesc, l.MaxConcurrent},
		{queuedDesc, l.ReadingBodies}, {maxQueuedDesc, l.MaxReadingBodies},
		{maxStreamsDesc, l.MaxStreams},
	} {
		ch <- prometheus.MustNewConstMetric(g.d, prometheus.GaugeValue, float64(g.v))
	}
	// The two counts are read one after the other: while a stream opens
	// or closes between the reads, the difference may be off by one.
	get := min(l.GetStreams, l.Streams)
	ch <- prometheus.MustNewConstMetric(streamsDesc, prometheus.GaugeValue, float64(l.Streams-get), StreamListen)
	ch <- prometheus.MustNewConstMetric(streamsDesc, prometheus.GaugeValue, float64(get), StreamGet)
	if t, ok := c.s.CertificateNotAfter(); ok {
		ch <- prometheus.MustNewConstMetric(certDesc, prometheus.GaugeValue, float64(t.Unix()))
	}
}
