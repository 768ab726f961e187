package httpd

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
)

// Serving Options.Metrics (docs/http.md §13). On the main listener it is
// one more path behind the Host, Origin and token checks. With
// MetricsAddr it has a listener of its own, which serves nothing else and
// asks for no token — so that a scraper needs no secret — and is
// therefore loopback only unless MetricsPublic says the operator guards
// it another way. Host and Origin are checked there too: a loopback
// listener is what DNS rebinding aims at.

// MetricsPath is where Options.Metrics is served.
const MetricsPath = "/metrics"

// ErrMetricsNotLoopback is wrapped by the error of a non-loopback
// MetricsAddr without MetricsPublic.
var ErrMetricsNotLoopback = errors.New("metrics address is not loopback")

// scrape reports whether r asks the main listener for the metrics.
func (s *Server) scrape(r *http.Request) bool {
	return r.URL.Path == MetricsPath && s.opts.Metrics != nil && s.opts.MetricsAddr == ""
}

// metrics serves a scrape that passed the checks.
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		MethodNotAllowed(w, http.MethodGet)
		return
	}
	if ri := infoFrom(r.Context()); ri != nil {
		ri.scraped = true
	}
	s.opts.Metrics.ServeHTTP(w, r)
}

// listenMetrics binds MetricsAddr, when set, refusing a non-loopback one
// without MetricsPublic (before binding when the address is an IP, after
// when a name resolved to one).
func (s *Server) listenMetrics() error {
	addr := s.opts.MetricsAddr
	if addr == "" || s.opts.Metrics == nil {
		return nil
	}
	refuse := func(ip string) error {
		return fmt.Errorf("%w: refusing to serve metrics on %s (%s is not loopback) without a token: "+
			"use a loopback --metrics-addr, leave it out to serve /metrics behind the token, "+
			"or pass --metrics-public if a firewall or network policy guards it", ErrMetricsNotLoopback, addr, ip)
	}
	if host, _, err := net.SplitHostPort(addr); err == nil && !s.opts.MetricsPublic {
		if ip := net.ParseIP(host); host == "" || (ip != nil && !ip.IsLoopback()) {
			return refuse(cmp.Or(host, "every interface"))
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen for metrics on %s: %w", addr, err)
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() && !s.opts.MetricsPublic {
		ln.Close()
		return refuse(ip.String())
	}
	s.metricsLn = ln
	return nil
}

// MetricsAddr is the address bound for MetricsAddr, or nil.
func (s *Server) MetricsAddr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.metricsLn == nil {
		return nil
	}
	return s.metricsLn.Addr()
}

// serveMetrics serves the metrics listener, if any, until stop; Serve
// stops it after the main listener has drained, so a drain can be
// watched.
func (s *Server) serveMetrics() (stop func()) {
	if s.metricsLn == nil {
		return func() {}
	}
	srv := &http.Server{
		Handler:           http.HandlerFunc(s.metricsOnly),
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(s.metricsLn)
	}()
	return func() {
		srv.Close()
		<-done
	}
}

// metricsOnly is the metrics listener's handler: the Host and Origin
// checks, then MetricsPath and nothing else.
func (s *Server) metricsOnly(w http.ResponseWriter, r *http.Request) {
	if !s.guard.check(w, r) {
		return
	}
	if r.URL.Path != MetricsPath {
		writeError(w, http.StatusNotFound, codeInvalidRequest, "Not found: this listener serves "+MetricsPath+" only", nil)
		return
	}
	s.metrics(w, r)
}
