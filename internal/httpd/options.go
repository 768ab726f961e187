package httpd

import (
	"log/slog"
	"net/http"
	"time"
)

// Defaults for Options; each field's comment names the one it takes.
const (
	// DefaultAddr binds loopback only: serving a team is an explicit choice.
	DefaultAddr = "127.0.0.1:8765"
	// DefaultMaxBodyBytes bounds one request body. An MCP request is one
	// JSON-RPC message; the largest real ones are tools/call arguments,
	// far below this.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultMaxConcurrent bounds requests being served at once (streams
	// handed over with StartStream excepted).
	DefaultMaxConcurrent = 256
	// DefaultMaxBodyMemory bounds the bytes of request bodies held across
	// all requests, being read or served (body.go): sixteen bodies at
	// DefaultMaxBodyBytes, or tens of thousands of the usual few-kilobyte
	// ones. Without it, bodies being read (4 per MaxConcurrent slot) and
	// served could hold 1,280 × 4 MiB, 5 GiB.
	DefaultMaxBodyMemory = 64 << 20
	// DefaultMaxStreams bounds the streams held open at once (StartStream):
	// about one per connected 2026-07-28 client, each a few goroutines and
	// buffers, tens of KiB.
	DefaultMaxStreams = 1024
	// DefaultReadHeaderTimeout ends connections that trickle headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout bounds reading one request body.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds one answer, from the end of the body to the
	// last byte written. Two minutes leaves room for a slow tool call; a
	// stream (SSE) extends it per event with ExtendWriteDeadline.
	DefaultWriteTimeout = 2 * time.Minute
	// DefaultIdleTimeout closes keep-alive connections nobody uses.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultShutdownTimeout is how long in-flight requests get to finish
	// after shutdown starts. Kubernetes' default grace period is 30 s.
	DefaultShutdownTimeout = 20 * time.Second
	// retryAfter is the Retry-After of a 503 past MaxConcurrent.
	retryAfter = time.Second
	// TokenEnv is the environment variable the command reads one token
	// from (docs/http.md §2); the package itself never reads the
	// environment.
	TokenEnv = "AGENT3MD_TOKEN"
)

// Options configures a Server. A nil *Options, and every zero field, means
// the default named in the field's comment.
type Options struct {
	// Addr is host:port to listen on (default DefaultAddr). A port of 0
	// picks a free one; Server.Addr tells which.
	Addr string

	// TokenFile holds bearer tokens, one per line; blank lines and lines
	// starting with # are ignored. Reload reads it again.
	TokenFile string
	// Tokens are bearer tokens given directly (the command passes
	// AGENT3MD_TOKEN here); empty ones are ignored. They are accepted
	// beside the file's.
	Tokens []string
	// Insecure allows a non-loopback Addr without any token. Only for a
	// server behind a proxy that authenticates.
	Insecure bool

	// AllowOrigins are exact origins ("https://app.example.com") accepted
	// in an Origin header besides loopback ones; "*" accepts any origin.
	AllowOrigins []string
	// AllowHosts are host names ("mcp.example.com", no port) accepted in
	// the Host header besides localhost, 127.0.0.1 and [::1]. A request
	// that arrives over loopback always has its Host checked (DNS
	// rebinding), so a proxy on the same machine must either pass a
	// loopback Host or have its public name listed here; once AllowHosts
	// is set, every request's Host is checked.
	AllowHosts []string

	// TLSCert and TLSKey are PEM files; both set turns on HTTPS (TLS 1.2
	// minimum). Reload reads them again.
	TLSCert string
	TLSKey  string
	// MaxCredentialBytes bounds each credential file (the token file, the
	// certificate, the key; default DefaultMaxCredentialBytes), and
	// CredentialTimeout opening and reading one (default
	// DefaultCredentialTimeout), at start and on every Reload.
	MaxCredentialBytes int64
	CredentialTimeout  time.Duration

	// MaxBodyBytes bounds a request body (default DefaultMaxBodyBytes);
	// past it the answer is 413.
	MaxBodyBytes int64
	// MaxBodyMemory bounds the bytes of request bodies held across all
	// requests, from the first byte read to the request's end (default
	// DefaultMaxBodyMemory); a body that does not fit in what is left is
	// answered 503 with Retry-After (body.go). It is at least
	// MaxBodyBytes (Check).
	MaxBodyMemory int64
	// MaxConcurrent bounds requests served at once (default
	// DefaultMaxConcurrent); past it the answer is 503 with Retry-After.
	// /healthz is not counted.
	MaxConcurrent int
	// MaxAnswerMemory bounds the bytes of answers held for writing across
	// all requests (default DefaultMaxAnswerMemory): a handler reserves
	// each answer's bytes with ReserveAnswer, and past the budget the
	// answer is 503 with Retry-After (answers.go).
	MaxAnswerMemory int64
	// MaxStreams bounds the requests turned into long-lived streams with
	// StartStream (default DefaultMaxStreams); they leave MaxConcurrent,
	// and past this bound StartStream answers 503.
	MaxStreams int

	// ReadHeaderTimeout bounds reading request headers (default
	// DefaultReadHeaderTimeout).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a request body (default
	// DefaultReadTimeout). It is applied per request, and lifted once the
	// body is read: a server-wide read deadline would cancel the context of
	// any handler that runs longer (net/http's background read times out).
	ReadTimeout time.Duration
	// WriteTimeout bounds writing an answer (default DefaultWriteTimeout),
	// applied per request so streams can extend it (ExtendWriteDeadline).
	WriteTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections (default
	// DefaultIdleTimeout).
	IdleTimeout time.Duration
	// ShutdownTimeout is how long Serve waits for in-flight requests after
	// its context ends (default DefaultShutdownTimeout); then it closes
	// every connection.
	ShutdownTimeout time.Duration

	// Logger gets one line per request and the server's own events
	// (default: slog.Default()).
	Logger *slog.Logger

	// Observer is told of every request and credential reload, for
	// metrics (observe.go); nil: nothing is told.
	Observer Observer
	// Metrics, when set, is served at MetricsPath (GET): on the main
	// listener behind the token check, or on MetricsAddr alone.
	Metrics http.Handler
	// MetricsAddr, when set, is a host:port of its own for Metrics,
	// served there without a token (and not on the main listener),
	// Host and Origin still checked. It must be loopback unless
	// MetricsPublic is set.
	MetricsAddr string
	// MetricsPublic allows a non-loopback MetricsAddr: the operator says
	// who can reach it (a network policy, a firewall).
	MetricsPublic bool
}

// withDefaults returns a copy of o with every zero field set.
func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.MaxBodyMemory <= 0 {
		c.MaxBodyMemory = DefaultMaxBodyMemory
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.MaxAnswerMemory <= 0 {
		c.MaxAnswerMemory = DefaultMaxAnswerMemory
	}
	if c.MaxStreams <= 0 {
		c.MaxStreams = DefaultMaxStreams
	}
	if c.MaxCredentialBytes <= 0 {
		c.MaxCredentialBytes = DefaultMaxCredentialBytes
	}
	setDuration(&c.CredentialTimeout, DefaultCredentialTimeout)
	setDuration(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	setDuration(&c.ReadTimeout, DefaultReadTimeout)
	setDuration(&c.WriteTimeout, DefaultWriteTimeout)
	setDuration(&c.IdleTimeout, DefaultIdleTimeout)
	setDuration(&c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Observer == nil {
		c.Observer = nopObserver{}
	}
	return c
}

func setDuration(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}
