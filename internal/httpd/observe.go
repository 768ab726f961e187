package httpd

import (
	"context"
	"net/http"
	"time"
)

// What the server tells an Observer (Options.Observer), for metrics
// (docs/http.md §13). The package counts nothing itself and imports no
// metrics library: cmd passes internal/metrics' collector. Every request
// ends in one Request call whose record says everything counted about it
// (why it was turned away included), so a new rejection — another bound's
// 503 — is one Reject call at its site and one constant below, and shows
// in the metrics with no other change.

// Observer is told what the server does. Its methods run on the request
// path and on Reload: they must be quick and safe for concurrent use.
type Observer interface {
	// Request is called once per request, after its answer (probes of
	// HealthPath and scrapes of MetricsPath excepted).
	Request(RequestRecord)
	// CredentialReload is called for each credential file Reload reads
	// (Kind* constants), with the error that kept the old one in use or
	// nil.
	CredentialReload(kind string, err error)
}

// RequestRecord is what an Observer is told about one request.
type RequestRecord struct {
	// Agent is the slug of the served agent the path names (/mcp names
	// the default one), or "" when it names none.
	Agent string
	// Method is the MCP method of the request's message, "" when no
	// message was read (a rejection, a GET), or BatchMethod for a
	// 2025-03-26 batch of several. It is what the client sent, bounded in
	// length but not in values: an observer keeps its own set.
	Method string
	// Status is the HTTP status answered.
	Status int
	// Duration runs from the request's arrival to the end of its answer.
	Duration time.Duration
	// BytesOut counts the answer's body bytes.
	BytesOut int64
	// Stream reports a request that became a long-lived stream
	// (StartStream): its duration is how long the client stayed.
	Stream bool
	// Rejection says why the server turned the request away itself; ""
	// when it did not (or the token check did: Auth).
	Rejection Rejection
	// Auth says why the token check failed; "" when it passed or did not
	// run.
	Auth AuthFailure
}

// BatchMethod is RequestRecord.Method for a batch of several messages.
const BatchMethod = "batch"

// Rejection is why the server turned a request away before (or instead
// of) its endpoint answering it.
type Rejection string

// The rejections, each at one site.
const (
	RejectHost         Rejection = "host"           // 403: Host not allowed (§3)
	RejectOrigin       Rejection = "origin"         // 403: Origin not allowed (§3)
	RejectBodyTooLarge Rejection = "body_too_large" // 413: over MaxBodyBytes
	RejectBodyTimeout  Rejection = "body_timeout"   // 408: body not in within ReadTimeout
	RejectBodyReads    Rejection = "body_reads"     // 503: too many bodies being read
	RejectConcurrent   Rejection = "max_concurrent" // 503: MaxConcurrent requests running
	RejectStreams      Rejection = "max_streams"    // 503: MaxStreams streams open
	RejectAnswerMemory Rejection = "answer_memory"  // 503: MaxAnswerMemory held by answers (answers.go)
	RejectBodyMemory   Rejection = "body_memory"    // 503: MaxBodyMemory held by bodies (body.go)
)

// Rejections lists every Rejection, for an observer that shows each from
// the start (a counter at 0 rather than none).
var Rejections = []Rejection{RejectHost, RejectOrigin, RejectBodyTooLarge, RejectBodyTimeout, RejectBodyReads, RejectConcurrent, RejectStreams, RejectAnswerMemory, RejectBodyMemory}

// AuthFailure is why a request failed the bearer token check (401).
type AuthFailure string

// The reasons a token check fails.
const (
	AuthMissing   AuthFailure = "missing"   // no Authorization header
	AuthMalformed AuthFailure = "malformed" // not one "Bearer TOKEN" header
	AuthInvalid   AuthFailure = "invalid"   // a token not accepted
)

// AuthFailures lists every AuthFailure.
var AuthFailures = []AuthFailure{AuthMissing, AuthMalformed, AuthInvalid}

// Reject records why the request served with ctx is being turned away,
// for its RequestRecord. The site that answers the rejection calls it;
// on a context not made by this package it does nothing.
func Reject(ctx context.Context, why Rejection) {
	if ri := infoFrom(ctx); ri != nil {
		ri.rejection = why
	}
}

// Load is a snapshot of the server's bounded resources.
type Load struct {
	// InFlight counts requests holding one of MaxConcurrent slots.
	InFlight, MaxConcurrent int
	// ReadingBodies counts requests admitted and reading their body,
	// before they take a slot: the queue in front of MaxConcurrent.
	ReadingBodies, MaxReadingBodies int
	// Streams counts open long-lived streams (StartStream); GetStreams
	// those of them a GET opened (a handshake-era client's change
	// stream), the others being POSTs (subscriptions/listen).
	Streams, MaxStreams int
	GetStreams          int
}

// Load returns the server's current load: what its bounds hold now.
func (s *Server) Load() Load {
	return Load{
		InFlight: len(s.sem), MaxConcurrent: cap(s.sem),
		ReadingBodies: len(s.reading), MaxReadingBodies: cap(s.reading),
		Streams: len(s.streams), MaxStreams: cap(s.streams),
		GetStreams: int(s.getStreams.Load()),
	}
}

// CertificateNotAfter is the expiry of the certificate being served;
// false without TLS.
func (s *Server) CertificateNotAfter() (time.Time, bool) {
	if s.certs == nil {
		return time.Time{}, false
	}
	return s.certs.expiry(), true
}

// nopObserver is the Observer of a server given none.
type nopObserver struct{}

func (nopObserver) Request(RequestRecord)          {}
func (nopObserver) CredentialReload(string, error) {}

// record builds the RequestRecord of a request ServeHTTP has answered.
func (s *Server) record(r *http.Request, rec *recorder, ri *requestInfo, start time.Time) RequestRecord {
	status := rec.status
	if status == 0 {
		status = http.StatusOK // the handler wrote nothing: net/http sends 200
	}
	method := ""
	if ri.methods.Load() > 1 {
		method = BatchMethod
	} else if p := ri.mcpMethod.Load(); p != nil {
		method = *p
	}
	return RequestRecord{
		Agent: s.route.slugOf(r.URL.Path), Method: method, Status: status,
		Duration: time.Since(start), BytesOut: rec.out, Stream: ri.stream,
		Rejection: ri.rejection, Auth: ri.auth,
	}
}
