package httpd

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// JSON-RPC codes of the rejections written here. These answers come from
// the HTTP layer, before any message is read, so the body is an error
// without an id (docs/http.md §5).
const (
	codeInvalidRequest = -32600
	codeInternal       = -32603
)

// rpcError is an id-less JSON-RPC error response.
type rpcError struct {
	JSONRPC string   `json:"jsonrpc"`
	Error   rpcInner `json:"error"`
}

type rpcInner struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// writeError answers status with a JSON-RPC-shaped body.
func writeError(w http.ResponseWriter, status, code int, msg string, data any) {
	body, err := json.Marshal(rpcError{JSONRPC: "2.0", Error: rpcInner{Code: code, Message: msg, Data: data}})
	if err != nil { // only data could fail, and callers pass plain values
		body = []byte(`{"jsonrpc":"2.0","error":{"code":-32603,"message":"internal error"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// MethodNotAllowed answers 405 with an Allow header listing allowed, for an
// endpoint that does not serve r.Method (docs/http.md §5: GET and DELETE
// on an MCP endpoint that defines neither).
func MethodNotAllowed(w http.ResponseWriter, allowed ...string) {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	writeError(w, http.StatusMethodNotAllowed, codeInvalidRequest,
		"Method not allowed: use "+strings.Join(allowed, " or "), nil)
}

// ErrNoToken is wrapped by the *BindError of a non-loopback address
// without a token.
var ErrNoToken = errors.New("no bearer token configured")

// BindError refuses to serve a non-loopback address without
// authentication. The command words the flags; this error names them too,
// since it is the one a user meets first.
type BindError struct {
	Addr string // the address asked for
	IP   string // the address it means, which is not loopback
	Err  error
}

func (e *BindError) Error() string {
	return fmt.Sprintf("refusing to serve %s (%s is not loopback) without a bearer token: "+
		"give --token-file FILE or set %s, or pass --insecure if a proxy in front authenticates",
		e.Addr, e.IP, TokenEnv)
}

func (e *BindError) Unwrap() error { return e.Err }
