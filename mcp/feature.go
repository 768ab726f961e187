package mcp

import (
	"maps"
)

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

// listChanged is a list capability's settings: listChanged when the agent
// is watched, so its lists can change under a client.
func (s *server) listChanged() map[string]any {
	if s.watching() {
		return map[string]any{"listChanged": true}
	}
	return map[string]any{}
}
