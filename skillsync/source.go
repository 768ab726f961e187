package skillsync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// A source is spoken to through the shared MCP client (mcpclient).
// The era is the newest both sides speak: server/discover first, which a
// 2026-07-28 server answers; else the initialize handshake
// (docs/sync.md §2).

// clientInfo is how sync names itself to servers.
var clientInfo = mcpclient.Implementation{Name: "agent3md-sync", Version: "1"}

// probeWait bounds the server/discover probe: a handshake-era stdio
// server may ignore a request that comes before initialize.
const probeWait = 5 * time.Second

// Extension and method names sync uses.
const (
	extSkills       = "io.modelcontextprotocol/skills"
	methodDiscover  = "server/discover"
	methodSkillsGet = "skills/get"
	methodSubscribe = "resources/subscribe"
)

// String is how markers and messages name the source: the URL without
// user info, or "server: " and the command line.
func (s *Source) String() string {
	if s.URL != "" {
		if u, err := url.Parse(s.URL); err == nil {
			u.User = nil
			return u.String()
		}
		return s.URL
	}
	return "server: " + strings.Join(s.Command, " ")
}

// conn is one connection to the source, in one era, with what the server
// declared and a count of what was asked of it.
type conn struct {
	c       *mcpclient.Conn
	s       *mcpclient.Session
	timeout time.Duration

	server        string // the server's name as it gave it
	skillsExt     bool
	directoryRead bool
	resources     bool
	subscribe     bool

	// changed gets a token when a handshake-era server sends a
	// notification that its resources changed.
	changed chan struct{}

	requests atomic.Int64
	bytes    atomic.Int64
}

// dial connects to src and agrees on an era.
func dial(ctx context.Context, src *Source, o *Options, lim *Limits) (*conn, error) {
	k := &conn{timeout: o.Timeout, changed: make(chan struct{}, 1)}
	copts := &mcpclient.Options{
		MaxLineBytes:   answerBound(lim),
		HTTPClient:     src.HTTPClient,
		Token:          src.Token,
		Dir:            src.Dir,
		OnNotification: k.notified,
		OnDone: func(p *mcpclient.Pending) {
			k.requests.Add(1)
			k.bytes.Add(int64(p.Timing().AnswerBytes))
		},
	}
	open := func() (*mcpclient.Conn, error) {
		if src.URL != "" {
			copts.HTTPClient = pooled(src.HTTPClient, o.Workers)
			return mcpclient.Dial(src.URL, copts)
		}
		if len(src.Command) == 0 {
			return nil, errors.New("no source: give an http(s) URL or a server command")
		}
		return mcpclient.Spawn(src.Command, copts)
	}
	c, err := open()
	if err != nil {
		return nil, err
	}
	k.c = c
	if err := k.handshake(ctx, open); err != nil {
		k.c.Close()
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	return k, nil
}

// answerBound is the longest answer taken: a file at the limit as base64
// in JSON, and at least a long listing page.
func answerBound(lim *Limits) int {
	n := lim.MaxFileBytes/3*4 + 1<<20
	return int(max(n, 32<<20))
}

// pooled is hc (default: a client of its own) keeping a connection per
// worker alive between requests: Go's default keeps two per host, and
// the others would be opened again (a TLS handshake each) for every
// request.
func pooled(hc *http.Client, workers int) *http.Client {
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport}
	}
	tr, ok := hc.Transport.(*http.Transport)
	if !ok || tr.MaxIdleConnsPerHost >= workers+2 {
		return hc
	}
	out := *hc
	tr = tr.Clone()
	tr.MaxIdleConnsPerHost = workers + 2
	out.Transport = tr
	return &out
}

// close ends the connection (a spawned server is stopped).
func (k *conn) close() {
	if p := k.c.Process(); p != nil {
		p.CloseInput(2 * time.Second)
	}
	k.c.Close()
}

// notified is the client's OnNotification: it must not block.
func (k *conn) notified(m *mcpclient.Message) {
	switch m.Method {
	case "notifications/resources/list_changed", "notifications/resources/updated":
		select {
		case k.changed <- struct{}{}:
		default:
		}
	}
}

type discoverResult struct {
	SupportedVersions []string                   `json:"supportedVersions"`
	Capabilities      map[string]json.RawMessage `json:"capabilities"`
	Meta              map[string]json.RawMessage `json:"_meta"`
}

// handshake tries server/discover, then initialize. A stdio server that
// ended over the probe is started again for the handshake.
func (k *conn) handshake(ctx context.Context, reopen func() (*mcpclient.Conn, error)) error {
	modern := &mcpclient.Session{Conn: k.c, Modern: true, Info: clientInfo}
	var d discoverResult
	pctx, cancel := context.WithTimeout(ctx, probeWait)
	err := modern.Call(pctx, methodDiscover, nil, &d)
	cancel()
	if err == nil && slices.Contains(d.SupportedVersions, mcpclient.ModernVersion) {
		k.s = modern
		var info mcpclient.Implementation
		json.Unmarshal(d.Meta[mcpclient.MetaServerInfo], &info)
		k.server = info.Name
		return k.readCapabilities(d.Capabilities)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	select {
	case <-k.c.Done():
		k.c.Close()
		c, err := reopen()
		if err != nil {
			return err
		}
		k.c = c
	default:
	}
	ictx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	res, err := k.c.Initialize(ictx, mcpclient.LatestLegacy, clientInfo)
	if err != nil {
		return fmt.Errorf("neither server/discover (2026-07-28) nor initialize was answered: %w", err)
	}
	k.s = &mcpclient.Session{Conn: k.c, Info: clientInfo}
	if res.ServerInfo != nil {
		k.server = res.ServerInfo.Name
	}
	return k.readCapabilities(res.Capabilities)
}

// readCapabilities notes what sync can use of what the server declared.
func (k *conn) readCapabilities(caps map[string]json.RawMessage) error {
	var res struct {
		Subscribe bool `json:"subscribe"`
	}
	if raw, ok := caps["resources"]; ok {
		k.resources = true
		json.Unmarshal(raw, &res)
		k.subscribe = res.Subscribe
	}
	var ext map[string]json.RawMessage
	json.Unmarshal(caps["extensions"], &ext)
	if raw, ok := ext[extSkills]; ok {
		k.skillsExt = true
		var set struct {
			DirectoryRead bool `json:"directoryRead"`
		}
		json.Unmarshal(raw, &set)
		k.directoryRead = set.DirectoryRead
	}
	return nil
}

// timed bounds one request by the request timeout.
func (k *conn) timed(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, k.timeout)
}

// call sends one request in the connection's era, bounded by the
// request timeout.
func (k *conn) call(ctx context.Context, method string, params map[string]any, out any) error {
	ctx, cancel := k.timed(ctx)
	defer cancel()
	return k.s.Call(ctx, method, params, out)
}

// isUnknown reports an error answer that says the thing asked for is not
// served: -32602 (2026-07-28, skills/get) or -32002 (handshake era).
func isUnknown(err error) bool {
	var rpc *mcpclient.RPCError
	return errors.As(err, &rpc) && (rpc.Code == mcpclient.CodeInvalidParams || rpc.Code == -32002)
}

// isMissingMethod reports -32601: the server has no such method.
func isMissingMethod(err error) bool {
	var rpc *mcpclient.RPCError
	return errors.As(err, &rpc) && rpc.Code == mcpclient.CodeMethodNotFound
}
