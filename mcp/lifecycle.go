package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/loader"
)

// maxInstructionsBytes bounds the instructions (the identity plane's body)
// sent in initialize and server/discover results.
const maxInstructionsBytes = 8 << 10

// Cache hints for modern list/discover results (docs/protocol.md §1): the tool
// list and server description change only when the agent file does.
const (
	cacheTTLMs = int64(60_000)
	cacheScope = "public"
)

// stampModern adds resultType, _meta serverInfo and, for cached methods,
// ttlMs/cacheScope to a modern result (docs/protocol.md §1). Results that do not
// embed modernFields get the keys merged into their JSON object.
func (s *server) stampModern(res any, cached bool) (any, error) {
	var m modernFields
	if r, ok := res.(modernResult); ok {
		m = *r.modernPart()
	}
	m.ResultType = "complete"
	meta := map[string]any{metaServerInfo: s.serverInfo(version20260728)}
	for k, v := range m.Meta { // a result's own _meta keys (a subscription id) stay
		meta[k] = v
	}
	m.Meta = meta
	if cached {
		ttl := cacheTTLMs
		m.TTLMs = &ttl
		m.CacheScope = cacheScope
	}
	if r, ok := res.(modernResult); ok {
		*r.modernPart() = m
		return res, nil
	}
	if t, ok := res.(encodedTool); ok {
		return stampEncoded(t, &m)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encoding a result: %w", err)
	}
	obj := map[string]any{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("a 2026-07-28 result must be a JSON object: %w", err)
	}
	extra, _ := json.Marshal(m)
	if err := json.Unmarshal(extra, &obj); err != nil {
		return nil, fmt.Errorf("merging result fields: %w", err)
	}
	return obj, nil
}

// stampEncoded puts the modern keys in front of an encoded tool result,
// where encoding/json writes a toolCallResult's embedded modernFields; the
// result's own keys follow unchanged.
func stampEncoded(t encodedTool, m *modernFields) (preEncoded, error) {
	out, err := appendEncoded(make(preEncoded, 0, len(t.enc)+256), m)
	if err != nil {
		return nil, fmt.Errorf("encoding a result: %w", err)
	}
	if len(t.enc) < 2 || len(out) < 2 {
		return nil, errors.New("encoding a result: not a JSON object")
	}
	if len(out) > 2 && len(t.enc) > 2 {
		out[len(out)-1] = ','
	} else {
		out = out[:len(out)-1]
	}
	return append(out, t.enc[1:]...), nil
}

// implementation is MCP's Implementation (serverInfo).
type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// agentName is the agent's name: from the head when there is one, else
// from the agent once it is open.
func (s *server) agentName() string {
	if h := s.opts.Source.head; h != nil && h.Name != "" {
		return h.Name
	}
	if err := s.awaitLoad(context.Background()); err == nil {
		if v := s.acquire(); v != nil {
			defer v.release()
			if info := v.agent.Info(); info != nil && info.Name != "" {
				return info.Name
			}
		}
	}
	if n := s.lastName.Load(); n != nil {
		return *n // stopped: no version is in force any more
	}
	return "agent"
}

// rememberName records the name of a generation being put in force.
func (s *server) rememberName(a *loader.Agent) {
	if info := a.Info(); info != nil && info.Name != "" {
		name := info.Name
		s.lastName.Store(&name)
	}
}

// serverInfo describes this server; title exists from 2025-06-18 on.
func (s *server) serverInfo(version string) implementation {
	info := implementation{Name: "agent3md:" + s.agentName(), Version: s.opts.Version}
	if version >= version20250618 {
		info.Title = s.agentName()
	}
	return info
}

// instructions returns the identity plane's body, bounded by
// maxInstructionsBytes; "" when it cannot be read (logged). Before the
// first generation has loaded (and while it is the one served) a head that
// holds the identity answers without waiting for the file.
func (s *server) instructions(ctx context.Context, c *call) string {
	if h := s.opts.Source.head; h != nil && h.IdentityKnown && s.gen.Load() <= 1 {
		return truncateText(h.Identity, maxInstructionsBytes)
	}
	v, err := c.generation(ctx)
	if err != nil {
		s.log.Warn("identity body unavailable; sending no instructions", "err", err)
		return ""
	}
	v.instrOnce.Do(func() {
		body, err := v.agent.IdentityBody(ctx)
		if err != nil {
			s.log.Warn("identity body unavailable; sending no instructions", "err", err)
			return
		}
		v.instr = truncateText(body, maxInstructionsBytes)
	})
	return v.instr
}

// truncateText cuts text to at most max bytes on a rune boundary and says
// so in a note that fits the bound. A cut inside a fenced code block
// closes the block first, so the note is read as text, not as code, and
// the host's Markdown does not run the rest of its prompt into the block.
func truncateText(text string, max int) string {
	if len(text) <= max {
		return text
	}
	note := fmt.Sprintf("\n\n[… truncated: the identity is %d bytes; instructions keep the first part]", len(text))
	reserve := 0 // room kept for the line closing a fence
	for range 4 {
		cut := textclip.Cut(text, max-len(note)-reserve)
		closer := openFence(text[:cut])
		if len(closer) <= reserve {
			return text[:cut] + closer + note
		}
		reserve = len(closer)
	}
	return text[:textclip.Cut(text, max-len(note)-reserve)] + note
}

type initializeResult struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Capabilities    map[string]any `json:"capabilities"`
	ServerInfo      implementation `json:"serverInfo"`
	Instructions    string         `json:"instructions,omitempty"`
}

// initialize is the legacy handshake (docs/protocol.md §1).
func (s *server) initialize(ctx context.Context, c *call) (any, error) {
	var requested string
	if err := json.Unmarshal(c.params["protocolVersion"], &requested); err != nil {
		return nil, errorf(codeInvalidParams,
			"Invalid params: initialize needs params.protocolVersion as a string, such as %q", legacyVersions[0])
	}
	if err := s.loadRefusal(ctx); err != nil {
		return nil, err
	}
	v := negotiate(requested)
	if !c.sess.setVersion(v, c.params["capabilities"]) {
		return nil, errorf(codeInvalidRequest,
			"Invalid Request: this connection is already initialized (protocol version %s); initialize is answered once per connection, start a new one to negotiate again",
			c.sess.negotiated())
	}
	return &initializeResult{
		ProtocolVersion: v,
		Capabilities:    s.sessionCapabilities(c.sess),
		ServerInfo:      s.serverInfo(v),
		Instructions:    s.instructions(ctx, c),
	}, nil
}

// loadRefusal is the error the handshake (initialize, server/discover)
// answers when the agent file cannot be loaded, so a client hears the
// reason in the answer it waits for, not only on the server's stderr.
// Without a head the handshake waits for the load, wherever in the file its
// error sits. With a head (cmd passes one only for large files) it does not
// wait: it refuses only a load that has already failed, and a later failure
// reaches the requests that need the skills instead.
func (s *server) loadRefusal(ctx context.Context) error {
	if s.opts.Source.head != nil {
		select {
		case <-s.ready:
		default:
			return nil
		}
	}
	return s.awaitLoad(ctx)
}

// ping answers {} (legacy only; 2026-07-28 removed it).
func (s *server) ping(ctx context.Context, c *call) (any, error) {
	return struct{}{}, nil
}

type discoverResult struct {
	modernFields
	SupportedVersions []string       `json:"supportedVersions"`
	Capabilities      map[string]any `json:"capabilities"`
	Instructions      string         `json:"instructions,omitempty"`
}

// discover is 2026-07-28's server/discover (docs/protocol.md §1, §6): no serverInfo
// in the body, only in _meta.
func (s *server) discover(ctx context.Context, c *call) (any, error) {
	if err := s.loadRefusal(ctx); err != nil {
		return nil, err
	}
	return &discoverResult{
		SupportedVersions: supportedVersions,
		Capabilities:      s.capabilities(),
		Instructions:      s.instructions(ctx, c),
	}, nil
}

// lifecycleFeature is the handshake, ping and discovery: no capability.
var lifecycleFeature = &feature{
	name: "lifecycle",
	methods: map[string]methodSpec{
		methodInitialize: {handle: (*server).initialize, legacy: true, inline: inlineAlways},
		methodPing:       {handle: (*server).ping, legacy: true, inline: inlineAlways},
		methodDiscover:   {handle: (*server).discover, modern: true, cached: true, inline: inlineLoaded},
	},
}
