package mcp

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// inlineMethod reports whether requests of method are answered as they
// are read (methodSpec.inline); cheapCall then asks about the call.
func (s *server) inlineMethod(method string) bool {
	switch s.methods[method].inline {
	case inlineNever:
		return false
	case inlineLoaded:
		return s.loadedOK()
	}
	return true // inlineAlways
}

// cheapCall reports whether a call of an inline method is cheap enough to
// answer inline (methodSpec.cheap).
func (s *server) cheapCall(method string, params map[string]json.RawMessage) bool {
	cheap := s.methods[method].cheap
	return cheap == nil || cheap(s, params)
}

// register adds features to the server's method table. A method served
// by two features is a programming error.
func (s *server) register(fs ...*feature) {
	for _, f := range fs {
		for name, m := range f.methods {
			if _, dup := s.methods[name]; dup {
				panic("mcp: method " + name + " registered twice")
			}
			s.methods[name] = m
		}
		s.features = append(s.features, f)
	}
}

// capabilities are the server capabilities, derived from the registered
// features: each declares its key (tools, resources, prompts,
// completions) or its extension under capabilities.extensions.
func (s *server) capabilities() map[string]any {
	caps := map[string]any{}
	var exts map[string]any
	for _, f := range s.features {
		if f.capability == "" && f.extension == "" {
			continue
		}
		settings := map[string]any{}
		if f.settings != nil {
			settings = maps.Clone(f.settings(s))
		}
		if f.capability != "" {
			caps[f.capability] = settings
		}
		if f.extension != "" {
			if exts == nil {
				exts = map[string]any{}
			}
			exts[f.extension] = settings
		}
	}
	if exts != nil {
		caps["extensions"] = exts
	}
	return caps
}

// pushFlags are the capability flags that promise notifications sent
// outside any request's answer: list changes and resource updates.
var pushFlags = []string{"listChanged", "subscribe"}

// sessionCapabilities are the capabilities offered to a handshake-era
// session: all of them, except that a stateless one (a single message
// over HTTP) is promised no notification it could never receive
// (docs/protocol.md §12): no resource updates, since no stream knows its
// subscriptions, and list changes only when its transport carries them
// on a stream of their own (Exchange.ChangeEvents).
func (s *server) sessionCapabilities(sess *session) map[string]any {
	caps := s.capabilities()
	if !sess.stateless {
		return caps
	}
	for _, v := range caps {
		if settings, ok := v.(map[string]any); ok {
			for _, f := range pushFlags {
				if !sess.pushOffered(f) {
					delete(settings, f)
				}
			}
		}
	}
	return caps
}

// pushOffered reports whether a push flag may be offered to the session
// (as far as the agent declares it).
func (sess *session) pushOffered(flag string) bool {
	return !sess.stateless || flag == "listChanged" && sess.changeEvents
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

// listChanged is a list capability's settings: listChanged when the agent
// is watched, so its lists can change under a client.
func (s *server) listChanged() map[string]any {
	if s.watching() {
		return map[string]any{"listChanged": true}
	}
	return map[string]any{}
}
