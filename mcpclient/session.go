package mcpclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Protocol revisions (docs/protocol.md §1).
const (
	// LatestLegacy is the newest revision negotiated with initialize.
	LatestLegacy = "2025-11-25"
	// ModernVersion is the stateless revision: no handshake, _meta on
	// every request.
	ModernVersion = "2026-07-28"
)

// The 2026-07-28 per-request _meta keys (docs/protocol.md §1), and the
// tag of a subscription's notifications.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Implementation names a client or a server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeResult is the part of initialize's result a client reads.
type InitializeResult struct {
	ProtocolVersion string                     `json:"protocolVersion"`
	Capabilities    map[string]json.RawMessage `json:"capabilities"`
	ServerInfo      *Implementation            `json:"serverInfo"`
	Instructions    string                     `json:"instructions,omitempty"`
}

// Initialize is the handshake-era start of a session: initialize asking
// for version (with empty client capabilities), then
// notifications/initialized. Over HTTP, later requests carry the
// negotiated revision in MCP-Protocol-Version.
func (c *Conn) Initialize(ctx context.Context, version string, info Implementation) (*InitializeResult, error) {
	var res InitializeResult
	err := c.Call(ctx, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      info,
	}, &res)
	if err != nil {
		return nil, err
	}
	if err := c.Notify(ctx, "notifications/initialized", nil); err != nil {
		return nil, err
	}
	return &res, nil
}

// ModernParams is params with the _meta every 2026-07-28 request carries:
// the revision, the client's capabilities (none) and info. params is not
// modified.
func ModernParams(info Implementation, params map[string]any) map[string]any {
	p := map[string]any{"_meta": map[string]any{
		MetaProtocolVersion:    ModernVersion,
		MetaClientCapabilities: map[string]any{},
		MetaClientInfo:         info,
	}}
	for k, v := range params {
		p[k] = v
	}
	return p
}

// Session is a Conn spoken to in one era: after Initialize (Modern
// false), or stateless 2026-07-28 (Modern true), where every request
// carries ModernParams. Its helpers cover what a client that mirrors a
// skill server reads; Call covers the rest.
type Session struct {
	Conn   *Conn
	Modern bool
	Info   Implementation
}

// Params is p as sent in s's era.
func (s *Session) Params(p map[string]any) map[string]any {
	if s.Modern {
		return ModernParams(s.Info, p)
	}
	return p
}

// Call sends method with params in s's era and decodes the result into
// result (when not nil); an error answer is an *RPCError.
func (s *Session) Call(ctx context.Context, method string, params map[string]any, result any) error {
	return s.Conn.Call(ctx, method, s.Params(params), result)
}

// Listen opens subscriptions/listen for the notifications named (e.g.
// {"resourcesListChanged": true}); see Conn.Listen.
func (s *Session) Listen(ctx context.Context, notifications map[string]any) (*Subscription, error) {
	return s.Conn.Listen(ctx, s.Params(map[string]any{"notifications": notifications}))
}

// cursorParams is {cursor} when cursor is not "", else nil.
func cursorParams(cursor string, p map[string]any) map[string]any {
	if cursor == "" {
		return p
	}
	if p == nil {
		p = map[string]any{}
	}
	p["cursor"] = cursor
	return p
}

// Resource is a listed resource.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MimeType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`
}

// ResourcePage is one page of resources/list or resources/directory/read.
type ResourcePage struct {
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// ListResources reads one page of resources/list ("" for the first).
func (s *Session) ListResources(ctx context.Context, cursor string) (*ResourcePage, error) {
	var page ResourcePage
	if err := s.Call(ctx, "resources/list", cursorParams(cursor, nil), &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// ReadDirectory reads one page of resources/directory/read of uri: a
// skill directory's direct children (docs/protocol.md §10).
func (s *Session) ReadDirectory(ctx context.Context, uri, cursor string) (*ResourcePage, error) {
	var page ResourcePage
	if err := s.Call(ctx, "resources/directory/read", cursorParams(cursor, map[string]any{"uri": uri}), &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// ResourceContents is one content of resources/read: a text or a blob.
type ResourceContents struct {
	URI      string  `json:"uri"`
	MimeType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
}

// Bytes is the exact bytes the content carries: a text's UTF-8 bytes or
// a blob's decoded base64.
func (rc ResourceContents) Bytes() ([]byte, error) {
	switch {
	case rc.Text != nil && rc.Blob == nil:
		return []byte(*rc.Text), nil
	case rc.Blob != nil && rc.Text == nil:
		b, err := base64.StdEncoding.DecodeString(*rc.Blob)
		if err != nil {
			return nil, fmt.Errorf("blob is not base64: %v", err)
		}
		return b, nil
	}
	return nil, errors.New("content needs exactly one of text or blob")
}

// ReadResource reads uri's contents.
func (s *Session) ReadResource(ctx context.Context, uri string) ([]ResourceContents, error) {
	var res struct {
		Contents []ResourceContents `json:"contents"`
	}
	if err := s.Call(ctx, "resources/read", map[string]any{"uri": uri}, &res); err != nil {
		return nil, err
	}
	return res.Contents, nil
}

// SkillEntry is one skill of the skills extension (docs/protocol.md §10).
type SkillEntry struct {
	// URI is the skill's SKILL.md URI: skill://<path>/SKILL.md.
	URI string `json:"uri"`
	// Frontmatter is the SKILL.md frontmatter as JSON.
	Frontmatter json.RawMessage `json:"frontmatter"`
	// Resources is "dynamic" or the skill's files; see Files.
	Resources json.RawMessage `json:"resources"`
}

// SkillFile is one file of a skill, as skills/list lists it.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Files is the skill's files (SKILL.md first), or dynamic=true when the
// server lists them only through resources/directory/read.
func (e *SkillEntry) Files() (files []SkillFile, dynamic bool, err error) {
	var word string
	if json.Unmarshal(e.Resources, &word) == nil {
		if word == "dynamic" {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("%s: resources is %q, want \"dynamic\" or a list of files", e.URI, word)
	}
	if err := json.Unmarshal(e.Resources, &files); err != nil {
		return nil, false, fmt.Errorf("%s: resources is not a list of {uri, digest, size}: %w", e.URI, err)
	}
	return files, false, nil
}

// Root is the skill's root directory URI (its SKILL.md URI without
// "/SKILL.md").
func (e *SkillEntry) Root() string { return strings.TrimSuffix(e.URI, "/SKILL.md") }

// SkillsPage is one page of skills/list.
type SkillsPage struct {
	Skills     []SkillEntry `json:"skills"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

// ListSkills reads one page of skills/list ("" for the first).
func (s *Session) ListSkills(ctx context.Context, cursor string) (*SkillsPage, error) {
	var page SkillsPage
	if err := s.Call(ctx, "skills/list", cursorParams(cursor, nil), &page); err != nil {
		return nil, err
	}
	if page.Skills == nil {
		return nil, errors.New("skills/list: the result has no skills array")
	}
	return &page, nil
}

// ToolResult is a tools/call result.
type ToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text,omitempty"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// Text joins the result's text blocks.
func (r *ToolResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// CallTool calls a tool. A tool's own failure is a result with IsError
// set, not an error.
func (s *Session) CallTool(ctx context.Context, name string, args map[string]any) (*ToolResult, error) {
	var res ToolResult
	if err := s.Call(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
