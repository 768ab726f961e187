package httpd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// maxHeaderBytes bounds request headers. MCP requests carry a handful of
// short headers; 64 KiB leaves room for long tokens and proxies' additions.
const maxHeaderBytes = 64 << 10

// Server serves Endpoints over HTTP or HTTPS. Make one with New, then call
// Serve (and Listen first when the bound address is needed before).
type Server struct {
	opts   Options
	log    *slog.Logger
	route  *route
	tokens *tokenStore
	certs  *certStore // nil: plain HTTP

	sem     chan struct{} // one slot per request being served
	reading chan struct{} // one slot per request body being read (bodyReadsPerSlot)
	streams chan struct{} // one slot per open stream (StartStream)
	// getStreams counts the streams opened by a GET (Load).
	getStreams atomic.Int64
	answers    *answerBudget // answer memory (ReserveAnswer)
	bodies     *answerBudget // body memory (readBody)
	drain      chan struct{} // closed when shutdown starts
	draining   atomic.Bool
	stopOnce   sync.Once

	guard *guard
	obs   Observer

	mu        sync.Mutex
	ln        net.Listener
	metricsLn net.Listener // MetricsAddr's, when set
}

// New checks opts and endpoints and loads the tokens and certificate; it
// does not listen yet.
func New(opts *Options, endpoints Endpoints) (*Server, error) {
	o := opts.withDefaults()
	rt, err := newRoute(endpoints)
	if err != nil {
		return nil, err
	}
	toks, err := newTokenStore(o.TokenFile, o.Tokens, o.credLimits())
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:    o,
		log:     o.Logger,
		route:   rt,
		tokens:  toks,
		guard:   newGuard(&o),
		obs:     o.Observer,
		sem:     make(chan struct{}, o.MaxConcurrent),
		reading: make(chan struct{}, bodyReadsPerSlot*o.MaxConcurrent),
		streams: make(chan struct{}, o.MaxStreams),
		answers: newAnswerBudget(o.MaxAnswerMemory),
		bodies:  newAnswerBudget(o.MaxBodyMemory),
		drain:   make(chan struct{}),
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return nil, fmt.Errorf("HTTPS needs both a certificate and a key file (got certificate %q, key %q)", o.TLSCert, o.TLSKey)
	}
	if o.TLSCert != "" {
		if s.certs, err = newCertStore(o.TLSCert, o.TLSKey, o.credLimits()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Listen binds Options.Addr. It refuses, with a *BindError, an address
// that is not loopback when no token is configured and Insecure is off:
// the check uses the address actually bound, so a host name that resolves
// to a public address is caught too.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return nil
	}
	open := !s.tokens.required && !s.opts.Insecure
	// An IP address (or none, meaning all interfaces) is refused before
	// binding, so the port is never open for a moment; a host name is
	// checked on the address it resolved to.
	if host, _, err := net.SplitHostPort(s.opts.Addr); err == nil && open {
		if ip := net.ParseIP(host); host == "" || (ip != nil && !ip.IsLoopback()) {
			return &BindError{Addr: s.opts.Addr, IP: cmp.Or(host, "every interface"), Err: ErrNoToken}
		}
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.opts.Addr, err)
	}
	ip := ln.Addr().(*net.TCPAddr).IP
	loopback := ip.IsLoopback()
	if !loopback && open {
		ln.Close()
		return &BindError{Addr: s.opts.Addr, IP: ip.String(), Err: ErrNoToken}
	}
	if err := s.listenMetrics(); err != nil {
		ln.Close()
		return err
	}
	s.ln = ln
	attrs := []any{"addr", ln.Addr().String(), "tls", s.certs != nil, "tokens", s.tokens.count()}
	if s.metricsLn != nil {
		attrs = append(attrs, "metrics_addr", s.metricsLn.Addr().String())
	}
	if s.certs != nil {
		attrs = append(attrs, "cert_not_after", s.certs.expiry())
	}
	s.log.Info("listening", attrs...)
	if !loopback && !s.tokens.required {
		s.log.Warn("serving without authentication on a non-loopback address (insecure)", "addr", ln.Addr().String())
	}
	if s.guard.anyOrigin && !s.tokens.required {
		// CORS (cors.go) lets every page read the answers it gets.
		s.log.Warn("any web page a user opens can call this server through the browser and read its answers: --allow-origin '*' without a bearer token")
	}
	return nil
}

// Addr is the bound address, or nil before Listen.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Serve listens (unless Listen was called) and serves until ctx ends, then
// shuts down gracefully: /healthz turns 503, no new connection is
// accepted, Draining channels close so streams can end, and in-flight
// requests get ShutdownTimeout to finish before their connections are
// closed. It returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		// ReadTimeout and WriteTimeout stay 0: they are applied per request
		// (see Options), so a stream is not cut off by a server-wide one.
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(s.startDrain)
	if s.certs != nil {
		srv.TLSConfig = s.certs.config()
	}
	errc := make(chan error, 1)
	go func() {
		if s.certs != nil {
			errc <- srv.ServeTLS(s.ln, "", "")
		} else {
			errc <- srv.Serve(s.ln)
		}
	}()
	stopMetrics := s.serveMetrics()
	defer stopMetrics()
	select {
	case err := <-errc:
		return fmt.Errorf("serve on %s: %w", s.ln.Addr(), err)
	case <-ctx.Done():
	}
	return s.shutdown(srv, errc)
}

// shutdown stops srv within ShutdownTimeout, then forces it.
func (s *Server) shutdown(srv *http.Server, errc <-chan error) error {
	s.startDrain()
	s.log.Info("shutting down", "timeout", s.opts.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
		err = fmt.Errorf("shutdown: requests still running after %s were cut off: %w", s.opts.ShutdownTimeout, err)
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// startDrain marks the server draining and tells streams to end.
func (s *Server) startDrain() {
	s.stopOnce.Do(func() {
		s.draining.Store(true)
		close(s.drain)
	})
}

// Reload reads the token file and the TLS certificate again (the command
// calls it on SIGHUP). What fails to load is reported and the old value
// stays in use; what loads replaces the old at once, for new requests and
// handshakes.
func (s *Server) Reload() error {
	var errs []error
	if s.tokens.file != "" {
		err := s.tokens.reload()
		if err != nil {
			s.log.Error("token reload failed; keeping the tokens in use", "err", err)
			errs = append(errs, err)
		} else {
			s.log.Info("tokens reloaded", "tokens", s.tokens.count())
		}
		s.obs.CredentialReload(KindTokenFile, err)
	}
	if s.certs != nil {
		err := s.certs.reload()
		if err != nil {
			s.log.Error("certificate reload failed; keeping the certificate in use", "err", err)
			errs = append(errs, err)
		} else {
			s.log.Info("certificate reloaded", "cert_not_after", s.certs.expiry())
		}
		s.obs.CredentialReload(KindTLSCert, err)
	}
	return errors.Join(errs...)
}

// ServeHTTP runs the chain of doc.go around the endpoint and logs the
// request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ri := &requestInfo{drain: s.drain, streams: s.streams, getStreams: &s.getStreams}
	ri.answers.budget = s.answers
	defer ri.answers.release() // the answer is written, failed or cut off
	ri.bodies.budget = s.bodies
	defer ri.bodies.release() // the body is dropped with the request
	r = r.WithContext(context.WithValue(r.Context(), infoKey{}, ri))
	rec := &recorder{ResponseWriter: w}
	if r.Body == nil { // only a Request built by hand; net/http always sets one
		r.Body = http.NoBody
	}
	body := &countingBody{ReadCloser: r.Body}
	r.Body = body
	defer func() {
		// Probes and scrapes every few seconds would drown the log and
		// the request counts. A scrape turned away is counted.
		if r.URL.Path == HealthPath || ri.scraped {
			logRequest(s.log, slog.LevelDebug, r, rec, body.n, ri, start)
			return
		}
		logRequest(s.log, slog.LevelInfo, r, rec, body.n, ri, start)
		s.obs.Request(s.record(r, rec, ri, start))
	}()
	s.serve(rec, r)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == HealthPath {
		s.health(w)
		return
	}
	if !s.guard.check(w, r) || cors(w, r) || !s.tokens.authorize(w, r) {
		return
	}
	if s.scrape(r) {
		s.metrics(w, r)
		return
	}
	h := s.route.handler(r.URL.Path)
	if h == nil {
		s.route.notFound(w, r)
		return
	}
	// The body is read before a --max-concurrent slot is taken: a client
	// that trickles its body (a byte a second, for up to ReadTimeout)
	// would otherwise hold a slot while the server does nothing for it,
	// and --max-concurrent such clients would turn every other request
	// away. Bodies being read have their own, larger bound.
	select {
	case s.reading <- struct{}{}:
	default:
		Reject(r.Context(), RejectBodyReads)
		s.unavailable(w, fmt.Sprintf("Service unavailable: %d request bodies already being read (%d for each of the server's --max-concurrent slots); retry shortly", cap(s.reading), bodyReadsPerSlot))
		return
	}
	ok := s.readBody(w, r)
	<-s.reading
	if !ok {
		return
	}
	ri := infoFrom(r.Context())
	select {
	case s.sem <- struct{}{}:
		ri.slot.hold(s.sem, nil)
		defer ri.slot.release() // this slot, or the stream's (StartStream)
	default:
		Reject(r.Context(), RejectConcurrent)
		s.unavailable(w, fmt.Sprintf("Service unavailable: %d requests already being served (the server's --max-concurrent); retry shortly", s.opts.MaxConcurrent))
		return
	}
	// The answer's clock starts once the body is in (see Options.WriteTimeout).
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
	h.ServeHTTP(w, r)
}

// bodyReadsPerSlot is how many request bodies may be read at once for
// each --max-concurrent slot. Reading a body costs a goroutine and what
// has arrived of it (at most MaxBodyBytes), not the agent's work, so the
// bound is looser than the one on requests served.
const bodyReadsPerSlot = 4

// unavailable answers 503 with Retry-After and msg.
func (s *Server) unavailable(w http.ResponseWriter, msg string) {
	w.Header().Set("Retry-After", fmt.Sprint(int(retryAfter/time.Second)))
	writeError(w, http.StatusServiceUnavailable, codeInternal, msg, nil)
}

// health answers probes: 200 while serving, 503 once draining, so a load
// balancer stops sending before connections close. No agent data.
func (s *Server) health(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	if s.draining.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"status":"draining"}` + "\n"))
		return
	}
	w.Write([]byte(`{"status":"ok"}` + "\n"))
}
