package fakemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// DefaultMaxBodyBytes bounds one recorded request body. A host's request
// holds the whole conversation; 64 MiB is far above any this package is
// for, and a body over it is refused with 413 instead of growing memory.
const DefaultMaxBodyBytes = 64 << 20

// Options tunes a Server; nil means the defaults.
type Options struct {
	MaxBodyBytes int64 // largest request body accepted (default DefaultMaxBodyBytes)
}

// Call is one tool call of the scripted model.
type Call struct {
	Name      string         // the tool's name as the host offers it (mcp__s__get_skill, get_skill)
	Namespace string         // Responses API: the namespace tool that holds it (mcp__s); empty elsewhere
	Input     map[string]any // the arguments
}

// Part is one piece of a tool result as the host handed it back.
type Part struct {
	Type string // "text", or the host's own kind ("tool_reference", "image", …)
	Text string // the text; for a tool reference, the tool's name
}

// Result is a tool call's result as the host handed it to the model.
type Result struct {
	Call    Call   // the call it answers, as the host echoed it in the conversation
	Text    string // what the model reads: the text of Parts, joined by newlines
	Parts   []Part // in order
	IsError bool
	Raw     json.RawMessage // the result item exactly as the host sent it
}

// Tool is a tool the host offered the model.
type Tool struct {
	Name        string
	Namespace   string // Responses API: the namespace tool it sits in
	Description string
	Raw         json.RawMessage
}

// qualified is the tool's name with its namespace, "mcp__s/get_skill".
func (t Tool) qualified() string {
	if t.Namespace == "" {
		return t.Name
	}
	return t.Namespace + "/" + t.Name
}

// Turn is what a request of the host's agent loop handed the model.
type Turn struct {
	System   string   // the system prompt or instructions, as text
	Messages []string // the text of each user or assistant message, oldest first (tool calls and results aside)
	Tools    []Tool   // every tool offered, namespaces flattened; with those a tool search loaded into the conversation
	Results  []Result // the tool results in the conversation, oldest first
	Stream   bool     // the host asked for a streamed answer
}

// Context is everything the model was handed as text outside tool
// results: the system prompt, then every message. Hosts differ in where
// they put a server's instructions (Gemini CLI puts them in the first user
// message); this is where to look for them.
func (t *Turn) Context() string {
	return strings.Join(append([]string{t.System}, t.Messages...), "\n")
}

// Request is one request the host sent, as it arrived.
type Request struct {
	Method string
	Path   string // with the query, if any
	Header http.Header
	Body   []byte
	Turn   *Turn // set when the request was a turn of the agent loop
	Reply  *Call // the tool call a turn was answered with; nil for the final text
}

// Step makes the model's next tool call from the results so far. An error
// ends the script: the fake answers with a final text naming it, and
// Server.Err reports it.
type Step func(results []Result) (Call, error)

// Script is the model's whole part in a conversation: one tool call per
// step, then Final as its last answer.
type Script struct {
	Steps []Step
	Final string // default "done"
}

// Dialect is a model provider's API: how a request shows a turn and its
// tool results, and how an answer is written. Anthropic, Responses and
// Gemini are the dialects there are.
type Dialect interface {
	// turn parses a request; it returns nil for a request that is not a
	// turn of the agent loop (a side request, or another endpoint).
	turn(r *http.Request, body []byte) (*Turn, error)
	// answer writes the reply to a turn: c, or the final text when c is nil.
	// n is the step's index, so a retried turn gets the same call ids.
	answer(w http.ResponseWriter, t *Turn, c *Call, final string, n int)
	// side answers any other request plausibly.
	side(w http.ResponseWriter, r *http.Request, body []byte)
}

// Server is a scripted model API listening on 127.0.0.1. Safe for
// concurrent use.
type Server struct {
	URL string // http://127.0.0.1:PORT

	d       Dialect
	script  Script
	maxBody int64
	srv     *http.Server
	done    chan struct{}

	mu   sync.Mutex
	reqs []Request
	err  error
}

// Start listens on 127.0.0.1 on a free port and serves d, playing s.
// Close stops it.
func Start(d Dialect, s Script, opts *Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listening on 127.0.0.1: %w", err)
	}
	if s.Final == "" {
		s.Final = "done"
	}
	f := &Server{URL: "http://" + ln.Addr().String(), d: d, script: s, maxBody: DefaultMaxBodyBytes, done: make(chan struct{})}
	if opts != nil && opts.MaxBodyBytes > 0 {
		f.maxBody = opts.MaxBodyBytes
	}
	f.srv = &http.Server{Handler: f, ReadHeaderTimeout: 30 * time.Second}
	go func() {
		defer close(f.done)
		f.srv.Serve(ln)
	}()
	return f, nil
}

// Close stops the server, waiting at most 5 s for requests in flight.
// It is safe to call more than once.
func (f *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := f.srv.Shutdown(ctx)
	<-f.done
	if errors.Is(err, context.DeadlineExceeded) {
		f.srv.Close()
	}
	return nil
}

// Requests returns every request recorded so far, in arrival order.
func (f *Server) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.reqs...)
}

// Turns returns the requests that were turns of the agent loop.
func (f *Server) Turns() []Request {
	var out []Request
	for _, r := range f.Requests() {
		if r.Turn != nil {
			out = append(out, r)
		}
	}
	return out
}

// Last returns the latest turn holding the most tool results: the whole
// conversation as the model last saw it. ok is false before any turn.
func (f *Server) Last() (t *Turn, ok bool) {
	for _, r := range f.Turns() {
		if t == nil || len(r.Turn.Results) >= len(t.Results) {
			t = r.Turn
		}
	}
	return t, t != nil
}

// Err is the first error of a step, or of a turn the fake could not parse.
func (f *Server) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *Server) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

// ServeHTTP records the request and answers it.
func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, f.maxBody+1))
	if err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	if int64(len(body)) > f.maxBody {
		err := fmt.Errorf("%s %s: body over %d bytes (Options.MaxBodyBytes)", r.Method, r.URL.Path, f.maxBody)
		f.fail(err)
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body}
	t, err := f.d.turn(r, body)
	if err != nil {
		f.fail(fmt.Errorf("%s %s: %w", r.Method, rec.Path, err))
		f.record(rec)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if t == nil {
		f.record(rec)
		f.d.side(w, r, body)
		return
	}
	rec.Turn = t
	n := len(t.Results)
	var call *Call
	final := f.script.Final
	if n < len(f.script.Steps) {
		c, err := f.script.Steps[n](t.Results)
		if err != nil {
			err = fmt.Errorf("step %d: %w", n+1, err)
			f.fail(err)
			final = "script stopped: " + err.Error()
		} else {
			call = &c
		}
	}
	rec.Reply = call
	f.record(rec)
	f.d.answer(w, t, call, final, n)
}

func (f *Server) record(r Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, r)
}

// writeJSON answers v as a JSON body.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events, flushing after each.
type sse struct{ w http.ResponseWriter }

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

// event writes one event; an empty name writes a data-only event.
func (s sse) event(name string, v any) {
	b, _ := json.Marshal(v)
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if fl, ok := s.w.(http.Flusher); ok {
		fl.Flush()
	}
}

// joinText joins the text parts of a result.
func joinText(parts []Part) string {
	s := ""
	for i, p := range parts {
		if p.Type != "text" {
			continue
		}
		if i > 0 && s != "" {
			s += "\n"
		}
		s += p.Text
	}
	return s
}
