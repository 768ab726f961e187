package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// Protocol revisions served (docs/protocol.md §1). Dates compare as strings.
const (
	version20241105 = "2024-11-05"
	version20250326 = "2025-03-26"
	version20250618 = "2025-06-18"
	version20251125 = "2025-11-25"
	version20260728 = "2026-07-28"
)

// legacyVersions are the initialize-handshake revisions, newest first.
var legacyVersions = []string{version20251125, version20250618, version20250326, version20241105}

// supportedVersions is every revision served, both eras, newest first: the
// discover result's supportedVersions and -32022's data.supported.
var supportedVersions = append([]string{version20260728}, legacyVersions...)

// MCP method names: the one place they are spelled.
const (
	methodInitialize  = "initialize"
	methodInitialized = "notifications/initialized"
	methodPing        = "ping"
	methodDiscover    = "server/discover"
	methodToolsList   = "tools/list"
	methodToolsCall   = "tools/call"
	methodCancelled   = "notifications/cancelled"
)

// removedInModern are the methods 2026-07-28 dropped (docs/protocol.md §1); a
// modern request for one gets -32601 naming the removal.
var removedInModern = map[string]bool{
	methodInitialize:                   true,
	methodInitialized:                  true,
	methodPing:                         true,
	"logging/setLevel":                 true,
	"resources/subscribe":              true,
	"resources/unsubscribe":            true,
	"notifications/roots/list_changed": true,
}

// Modern _meta keys (docs/protocol.md §1).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// JSON-RPC and MCP error codes (docs/protocol.md). The JSON-RPC ones are
// sourcegraph/jsonrpc2's.
const (
	codeParseError          int64 = jsonrpc2.CodeParseError
	codeInvalidRequest      int64 = jsonrpc2.CodeInvalidRequest
	codeMethodNotFound      int64 = jsonrpc2.CodeMethodNotFound
	codeInvalidParams       int64 = jsonrpc2.CodeInvalidParams
	codeInternalError       int64 = jsonrpc2.CodeInternalError
	codeUnsupportedProtocol int64 = -32022
)

// wireError is a JSON-RPC error as a Go error: sourcegraph/jsonrpc2's error
// object, so the codes and the encoding are the library's. Handlers return
// it (wrapped or not) to choose the code; toWire recovers it with
// errors.As.
type wireError = jsonrpc2.Error

// errorf builds a wireError with a formatted message.
func errorf(code int64, format string, args ...any) *wireError {
	return &wireError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errorData builds a wireError carrying data (nil: none).
func errorData(code int64, msg string, data any) *wireError {
	we := &wireError{Code: code, Message: msg}
	if data != nil {
		we.SetError(data)
	}
	return we
}

// toWire maps any Go error to the JSON-RPC error sent for it: a wireError
// anywhere in the chain keeps its code; everything else is -32603.
func toWire(err error) *wireError {
	var we *wireError
	if !errors.As(err, &we) {
		we = &wireError{Code: codeInternalError, Message: "Internal error: " + err.Error()}
	}
	return we
}

// session is the per-connection legacy state: the revision initialize
// negotiated. initialize is answered as it is read, so every request read
// after it sees the revision. Modern requests never read or change it.
// Safe for concurrent use.
type session struct {
	mu      sync.Mutex
	version string // "" until initialize is answered
}

// setVersion records the revision of the connection's one session; it
// reports false, changing nothing, when a session is already in place.
func (s *session) setVersion(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version != "" {
		return false
	}
	s.version = v
	return true
}

func (s *session) negotiated() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// batchesAllowed reports whether the connection negotiated 2025-03-26, the
// one revision with JSON-RPC batching.
func (s *session) batchesAllowed() bool { return s.negotiated() == version20250326 }

// negotiate picks the answer to initialize's protocolVersion: the requested
// legacy revision when served, else the newest legacy one (never the
// handshake-less 2026-07-28).
func negotiate(requested string) string {
	for _, v := range legacyVersions {
		if v == requested {
			return v
		}
	}
	return legacyVersions[0]
}

// call is one request as a method handler sees it.
type call struct {
	method  string
	params  map[string]json.RawMessage
	version string // negotiated (legacy) or requested (modern) revision
	modern  bool
}

// atLeast reports whether the call's revision is v or newer.
func (c *call) atLeast(v string) bool { return c.version >= v }

// handlerFunc serves one request method.
type handlerFunc func(s *server, ctx context.Context, c *call) (any, error)

// methodSpec is one row of the method table.
type methodSpec struct {
	handle handlerFunc
	legacy bool // served to initialized legacy sessions
	modern bool // served to 2026-07-28 requests
	// cached results carry ttlMs/cacheScope in the modern era.
	cached bool
}

// methods is the static dispatch table (requests only; notifications are
// handled in notify).
var methods = map[string]methodSpec{
	methodInitialize: {handle: (*server).initialize, legacy: true},
	methodPing:       {handle: (*server).ping, legacy: true},
	methodDiscover:   {handle: (*server).discover, modern: true, cached: true},
	methodToolsList:  {handle: (*server).toolsList, legacy: true, modern: true, cached: true},
	methodToolsCall:  {handle: (*server).toolsCall, legacy: true, modern: true},
}
