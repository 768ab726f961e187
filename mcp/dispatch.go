package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// safeDispatch runs dispatch, turning a panic into -32603.
func (s *server) safeDispatch(ctx context.Context, sess *session, method string, params map[string]json.RawMessage) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("handler panic", "method", method, "panic", p, "stack", string(debug.Stack()))
			result, err = nil, errorf(codeInternalError, "Internal error while serving %s", method)
		}
	}()
	return s.dispatch(ctx, sess, method, params)
}

// dispatch decides the era of one request, checks it, and runs its method.
// A legacy request before any initialize is served as the newest legacy
// revision: clients that skip the handshake exist.
func (s *server) dispatch(ctx context.Context, sess *session, method string, params map[string]json.RawMessage) (any, error) {
	if err := checkMeta(params); err != nil {
		return nil, err
	}
	meta := decodeMeta(params)
	if _, modern := meta[metaProtocolVersion]; modern {
		c, err := modernCall(method, params, meta)
		if err != nil {
			return nil, err
		}
		c.srv, c.sess = s, sess
		defer c.done()
		spec, ok := s.methods[method]
		if !ok || !spec.modern {
			if removedInModern[method] {
				return nil, errorf(codeMethodNotFound, "Method not found: %s (removed in protocol version %s)", method, version20260728)
			}
			return nil, errorf(codeMethodNotFound, "Method not found: %s", method)
		}
		res, err := spec.handle(s, ctx, c)
		if err != nil {
			return nil, err
		}
		return s.stampModern(res, spec.cached)
	}
	spec, ok := s.methods[method]
	if !ok || !spec.legacy || !s.offered(sess, spec.needs) {
		return nil, errorf(codeMethodNotFound, "Method not found: %s", method)
	}
	version := sess.negotiated()
	if (version == "" || readBeforeHandshake(ctx)) && method != methodInitialize {
		version = legacyVersions[0]
		s.log.Debug("request before initialize; serving it as the newest legacy revision", "method", method, "version", version)
	}
	c := &call{srv: s, sess: sess, method: method, params: params, version: version}
	defer c.done()
	return s.cachedHandle(ctx, c, func() (any, error) { return spec.handle(s, ctx, c) })
}

type beforeHandshakeKey struct{}

// withBeforeHandshake marks a request read before the connection's
// initialize was read. A request waiting in the queue may run after that
// initialize has been handled: the mark keeps it served as what it was
// when it arrived, the newest legacy revision (docs/protocol.md §1).
func withBeforeHandshake(ctx context.Context) context.Context {
	return context.WithValue(ctx, beforeHandshakeKey{}, true)
}

func readBeforeHandshake(ctx context.Context) bool {
	b, _ := ctx.Value(beforeHandshakeKey{}).(bool)
	return b
}

// checkMeta refuses a params._meta that is not an object (null counts as
// absent). Read as absent, "_meta": "x" or ["…"] would be served as a
// handshake-era request with no progress token, whatever revision and
// token the client meant to send, and the mistake would go unseen.
func checkMeta(params map[string]json.RawMessage) error {
	raw, ok := params["_meta"]
	if !ok {
		return nil
	}
	switch k := jsonKind(bytes.TrimSpace(raw)); k {
	case "object", "null":
		return nil
	default:
		return errorf(codeInvalidParams, "Invalid params: params._meta must be an object, got %s", k)
	}
}

// modernCall checks a 2026-07-28 request's required _meta keys and version,
// in that order (docs/protocol.md §1 and §3).
func modernCall(method string, params, meta map[string]json.RawMessage) (*call, error) {
	var version string
	if err := json.Unmarshal(meta[metaProtocolVersion], &version); err != nil {
		return nil, errorf(codeInvalidParams, "Invalid params: params._meta[%q] must be a string", metaProtocolVersion)
	}
	caps, ok := meta[metaClientCapabilities]
	if !ok {
		return nil, errorf(codeInvalidParams, "Invalid params: params._meta[%q] is required (use {} for none)", metaClientCapabilities)
	}
	var capsObj map[string]json.RawMessage
	if json.Unmarshal(caps, &capsObj) != nil || capsObj == nil {
		return nil, errorf(codeInvalidParams, "Invalid params: params._meta[%q] must be an object", metaClientCapabilities)
	}
	if version != version20260728 {
		return nil, errorData(codeUnsupportedProtocol, "Unsupported protocol version: "+version,
			map[string]any{"supported": supportedVersions, "requested": version})
	}
	return &call{method: method, params: params, version: version, modern: true, caps: caps}, nil
}

// notify handles a notification; none is ever answered.
// notifications/cancelled never gets here: the connection applies it as it
// reads it.
func (s *server) notify(sess *session, method string) {
	switch method {
	case methodInitialized:
		s.log.Debug("client initialized", "version", sess.negotiated())
	default:
		s.log.Debug("ignoring notification", "method", method)
	}
}

// cachedHandle serves a legacy request through the answer cache when it is
// cacheable and the agent is loaded, else calls handle.
func (s *server) cachedHandle(ctx context.Context, c *call, handle func() (any, error)) (any, error) {
	key, bodies, ok := cacheKey(c.method, c.version, c.params)
	if !ok || !s.loadedOK() {
		return handle()
	}
	v, err := c.generation(ctx)
	if err != nil || bodies && !v.agent.Pinned() {
		return handle()
	}
	cat := v.agent.Catalog()
	if enc := v.cache.get(cat, key); enc != nil {
		return enc, nil
	}
	res, err := handle()
	if err != nil || !cacheable(res) || !v.cache.admit(cat, key) {
		return res, err
	}
	enc, ok := res.(preEncoded)
	if t, isTool := res.(encodedTool); isTool {
		enc, ok = t.enc, true
	}
	if !ok {
		if enc, err = encodeResult(res); err != nil {
			return res, nil // appendAnswer reports the failure
		}
	}
	v.cache.put(cat, key, enc)
	return enc, nil
}

// offered is declared for a handshake-era session: a push flag that
// sessionCapabilities withholds is not offered, so the methods behind it
// (resources/subscribe) do not exist there.
func (s *server) offered(sess *session, path string) bool {
	if _, flag, ok := strings.Cut(path, "."); ok && slices.Contains(pushFlags, flag) && !sess.pushOffered(flag) {
		return false
	}
	return s.declared(path)
}

// declared reports whether the capability path ("resources.subscribe",
// "completions") is declared.
func (s *server) declared(path string) bool {
	if path == "" {
		return true
	}
	for _, f := range s.features {
		key, flag, nested := strings.Cut(path, ".")
		if f.capability != key {
			continue
		}
		if !nested {
			return true
		}
		if f.settings == nil {
			return false
		}
		v, _ := f.settings(s)[flag].(bool)
		return v
	}
	return false
}

type requestIDKey struct{}

// withRequestID lets handlers that need it (subscriptions/listen) see the
// request's id as the client sent it.
func withRequestID(ctx context.Context, id json.RawMessage) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

func requestID(ctx context.Context) json.RawMessage {
	id, _ := ctx.Value(requestIDKey{}).(json.RawMessage)
	return id
}

// bind decodes a request's params into dst, a pointer to a struct whose
// fields name their member with a json tag and may carry
//
//	param:"required"   the member must be present and not null
//	desc:"…"           what the member is, for the error (default " as <kind>")
//
// Every method decodes its params through bind, so a client gets the same
// -32602 wording whatever it got wrong, wherever (docs/protocol.md §3):
// "Invalid params: <method> needs params.<name><desc>" for a required
// member that is missing or of the wrong kind, "Invalid params:
// params.<name> must be <kind>" for an optional one. A member of kind
// json.RawMessage is taken as is; tag it kind:"object" to require an
// object.
func bind(c *call, dst any) error {
	rv := reflect.ValueOf(dst).Elem()
	for _, f := range fieldsOf(rv.Type()) {
		raw, present := c.params[f.name]
		if present && string(raw) == "null" {
			present = false
		}
		if !present {
			if f.required {
				return f.missing(c.method)
			}
			continue
		}
		fv := rv.Field(f.index)
		if f.raw {
			if f.kind == "an object" && jsonKind(raw) != "object" {
				return f.wrong(c.method)
			}
			fv.SetBytes(raw)
			continue
		}
		if err := json.Unmarshal(raw, fv.Addr().Interface()); err != nil {
			// A member of the right kind with a wrong value inside
			// ({"argument": {"value": 5}}) is named down to that value:
			// "needs params.argument, an object {name, value}" said to a
			// client that sent one left it guessing.
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" && jsonKind(raw) == "object" {
				return errorf(codeInvalidParams, "Invalid params: params.%s.%s must be %s, got %s", f.name, te.Field, kindOf(te.Type), te.Value)
			}
			return f.wrong(c.method)
		}
	}
	return nil
}

// paramField is one bindable struct field.
type paramField struct {
	index    int
	name     string
	required bool
	desc     string
	kind     string // "a string", "an object", … for messages
	raw      bool   // json.RawMessage: kept as sent
}

func (f paramField) missing(method string) error {
	return errorf(codeInvalidParams, "Invalid params: %s needs params.%s%s", method, f.name, f.desc)
}

func (f paramField) wrong(method string) error {
	if f.required {
		return f.missing(method)
	}
	return errorf(codeInvalidParams, "Invalid params: params.%s must be %s", f.name, f.kind)
}

var paramFields sync.Map // reflect.Type -> []paramField

func fieldsOf(t reflect.Type) []paramField {
	if fs, ok := paramFields.Load(t); ok {
		return fs.([]paramField)
	}
	var fs []paramField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		f := paramField{index: i, name: name, required: sf.Tag.Get("param") == "required", kind: kindOf(sf.Type)}
		if sf.Type == reflect.TypeOf(json.RawMessage(nil)) {
			f.raw = true
			if sf.Tag.Get("kind") == "object" {
				f.kind = "an object"
			}
		}
		f.desc = sf.Tag.Get("desc")
		if f.desc == "" {
			f.desc = " as " + f.kind
		}
		fs = append(fs, f)
	}
	paramFields.Store(t, fs)
	return fs
}

func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.Map:
		if t.Elem().Kind() == reflect.String {
			return "an object of string values"
		}
		return "an object"
	case reflect.Struct:
		return "an object"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "any JSON value"
		}
		return "an array"
	}
	return fmt.Sprintf("a %s", t.Kind())
}

// bindAgent decodes the call's params into dst (bind) and takes its agent
// generation: the start of every handler that reads the agent.
func (c *call) bindAgent(ctx context.Context, dst any) (*generation, error) {
	if err := bind(c, dst); err != nil {
		return nil, err
	}
	return c.generation(ctx)
}

// cacheKey names a legacy request whose answer may be cached, or reports
// false: tools/list, resources/read, and tools/call with small arguments
// of a tool that allows it (toolDef.cache). bodies is set for the answers
// that hold skill bodies: those are cached only for a pinned agent
// (loader.Agent.Pinned), because an agent that follows its file notices
// an edit when it reads a body, and a cached body would hide the edit.
func cacheKey(method, version string, params map[string]json.RawMessage) (key string, bodies, ok bool) {
	for k := range params {
		if k != "name" && k != "arguments" && k != "cursor" && k != "uri" {
			return "", false, false // _meta and the like: keep the general path
		}
	}
	switch method {
	case methodResourcesRead:
		uri, ok := plainString(params["uri"])
		if !ok || len(params) != 1 || len(uri) > maxCacheKeyArgs {
			return "", false, false
		}
		return method + "\x00" + version + "\x00" + uri, false, true
	case methodToolsList:
		return method + "\x00" + version + "\x00" + string(params["cursor"]), false, true
	case methodToolsCall:
		name, _ := plainString(params["name"])
		args := params["arguments"]
		if len(args) > maxCacheKeyArgs {
			return "", false, false
		}
		if t := toolByName(name); t != nil && t.cache != cacheNever {
			return name + "\x00" + version + "\x00" + string(args), t.cache == cacheBodies, true
		}
	}
	return "", false, false
}

// cacheable reports whether a result may be reused: never a tool error
// (it may say the agent failed to load, or name a passing condition).
func cacheable(res any) bool {
	if r, ok := res.(encodedTool); ok {
		return !r.isError
	}
	return true
}

// jsonKind names a raw JSON value's type.
func jsonKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// decodeParams reads params as an object; absent is {}. The values are
// slices of raw, which comes from a message decodeMessage has checked (so
// it is valid JSON: only its shape is checked here).
func decodeParams(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	if raw[0] != '{' {
		return nil, errorf(codeInvalidParams, "Invalid params: params must be a JSON object")
	}
	params := make(map[string]json.RawMessage, 4)
	eachMember(raw, func(key string, val []byte) { params[key] = val })
	return params, nil
}

// decodeMeta returns params._meta as an object, or nil.
func decodeMeta(params map[string]json.RawMessage) map[string]json.RawMessage {
	raw, ok := params["_meta"]
	if !ok {
		return nil
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(raw, &meta) != nil {
		return nil
	}
	return meta
}
