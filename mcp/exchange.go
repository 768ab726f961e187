package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// Server is the protocol core for one agent, shared by every transport:
// stdio (Serve) runs one connection on it, and a stateless transport such
// as Streamable HTTP hands it one message at a time (Exchange). It loads
// the agent and its routing index in the background, exactly as Serve
// does, and reloads them when Options.Source.Changes says the agent
// changed.
type Server struct {
	srv  *server
	stop func()
	once sync.Once
}

// NewServer starts the core for opts (Source required). Close it
// when done; ctx bounds the background loading.
func NewServer(ctx context.Context, opts *Options) (*Server, error) {
	if opts == nil {
		return nil, errors.New("mcp: NewServer needs Options with a Source (mcp.Loaded or mcp.Opener)")
	}
	if err := opts.Source.check(); err != nil {
		return nil, err
	}
	s := newServer(opts)
	if err := s.openWatch(); err != nil {
		return nil, err
	}
	return &Server{srv: s, stop: s.start(ctx)}, nil
}

// Close stops background work and releases the agent.
func (S *Server) Close() { S.once.Do(S.stop) }

// Loaded reports whether an agent generation is being served (for health
// probes): false while the first load runs or after it failed.
func (S *Server) Loaded() bool { return S.srv.loadedOK() }

// AgentName is the served agent's name (from the head while it loads).
func (S *Server) AgentName() string { return S.srv.agentName() }

// Exchange is one message on a stateless transport.
type Exchange struct {
	// Body is one JSON-RPC message (a request, a notification or a
	// response), as received.
	Body []byte
	// ProtocolVersion is the transport's protocol version header
	// (MCP-Protocol-Version over HTTP), "" when absent. A legacy value
	// sets the revision a request without 2026-07-28 _meta is served as
	// (there is no handshake to remember on a stateless transport); absent,
	// such a request is served as 2025-11-25.
	ProtocolVersion string
	// Notify, when set, receives the notifications sent while the request
	// runs (progress, a listen's acknowledgement and events), one encoded
	// line each. Nil drops them.
	Notify func(line []byte)
	// ChangeEvents reports that the transport carries list_changed events
	// outside any request (Streamable HTTP's GET stream, HTTPHandler): a
	// handshake-era initialize is then offered listChanged where the agent
	// declares it. resources.subscribe is never offered on a stateless
	// transport: no stream knows what a client subscribed to.
	ChangeEvents bool
}

// Reply is what a transport sends back for an Exchange.
type Reply struct {
	// Line is the encoded answer; nil when the message wants none (a
	// notification, a response, a cancelled request).
	Line []byte
	// Method is the request's method ("" when the message was not a valid
	// request), Name its params.name or params.uri when it has one: what
	// a transport logs and checks its headers against.
	Method, Name string
	// Modern reports a 2026-07-28 request (its _meta names the revision).
	Modern bool
	// Code is the JSON-RPC error code answered, 0 for a result.
	Code int64
}

// peeked is one message decoded once, with what a transport needs to
// know before serving it.
type peeked struct {
	msg       message
	errLine   []byte                     // the error answer when it is not a valid message
	params    map[string]json.RawMessage // nil when params is not an object
	paramsErr error                      // why params is not an object
	method    string
	name      string // params.name, else params.uri
	modern    bool   // a 2026-07-28 request (its _meta names the revision)
	request   bool
}

// peek decodes a message; ok is false for anything that is not a single
// valid request or notification (errLine then says why, except for a
// response, which wants no answer).
func peek(body []byte) (p peeked, ok bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		p.errLine = errorLine(nil, codeInvalidRequest, "Invalid Request: batches are not accepted on this transport; send one message per request", nil)
		return p, false
	}
	m, errLine := decodeMessage(body)
	if errLine != nil || m.reply {
		p.errLine = errLine
		return p, false
	}
	p.msg, p.method, p.request = m, m.method, m.rawID != nil
	p.params, p.paramsErr = decodeParams(m.params)
	if p.paramsErr != nil {
		return p, true
	}
	_, p.modern = decodeMeta(p.params)[metaProtocolVersion]
	if n, ok := plainString(p.params["name"]); ok {
		p.name = n
	} else if u, ok := plainString(p.params["uri"]); ok {
		p.name = u
	}
	return p, true
}

// funcNotifier sends notifications to a function.
type funcNotifier func(line []byte)

func (f funcNotifier) Notify(ctx context.Context, method string, params any) error {
	line, err := notificationLine(method, params)
	if err != nil {
		return err
	}
	f(line)
	return nil
}

// Exchange serves one message statelessly: a session of its own (the
// revision from x.ProtocolVersion when it is a legacy one), the request
// run to completion on the caller's goroutine, its answer returned.
// Cancelling ctx (the client went away) cancels the request; it is then
// not answered. A batch is refused: no stateless revision has them.
func (S *Server) Exchange(ctx context.Context, x *Exchange) Reply {
	pk, _ := peek(x.Body)
	return S.exchange(ctx, x, &pk)
}

// exchange is Exchange for a message already decoded (peek), so a
// transport that looked at it first does not decode it again.
func (S *Server) exchange(ctx context.Context, x *Exchange, pk *peeked) Reply {
	if pk.errLine != nil {
		return Reply{Line: pk.errLine, Code: codeOf(pk.errLine)}
	}
	m := pk.msg
	if m.reply {
		return Reply{}
	}
	var out notifier
	if x.Notify != nil {
		out = funcNotifier(x.Notify)
	}
	sess := newSession(out)
	sess.stateless, sess.changeEvents = true, x.ChangeEvents
	if v := x.ProtocolVersion; v != "" && negotiate(v) == v && m.method != methodInitialize {
		sess.version = v
	}
	s := S.srv
	if m.rawID == nil {
		if m.method != methodCancelled {
			s.notify(sess, m.method)
		}
		return Reply{Method: m.method}
	}
	rep := Reply{Method: m.method, Name: pk.name, Modern: pk.modern}
	s.attach(sess)
	defer s.detach(sess)
	res, err := any(nil), pk.paramsErr
	if err == nil {
		ctx = withNotifier(withRequestID(ctx, m.rawID), sess.out)
		res, err = s.safeDispatch(ctx, sess, m.method, pk.params)
	}
	if ctx.Err() != nil && err != nil {
		return rep // the client is gone: nothing to answer
	}
	if err != nil {
		rep.Code = toWire(err).Code
	}
	rep.Line = appendAnswer(nil, m.rawID, res, err)
	return rep
}

// codeOf reads the error code of an encoded error line.
func codeOf(line []byte) int64 {
	var e struct {
		Error struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(line, &e)
	return e.Error.Code
}
