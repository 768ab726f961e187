package mcp

import "sync"

// hooks are what a test adds to the server and connection built from one
// Options: methods that block until told (testMethods), and a look inside
// the connection before it starts. They live here, keyed by the Options
// pointer, so no production struct carries them.
type hooks struct {
	methods map[string]methodSpec
	conn    func(*conn)
}

// hooked maps an *Options to its *hooks.
var hooked sync.Map

// hooksFor is opts's hooks, made empty on first use.
func hooksFor(opts *Options) *hooks {
	h, _ := hooked.LoadOrStore(opts, &hooks{})
	return h.(*hooks)
}

// withMethods adds request methods to the server built from opts.
func withMethods(opts *Options, m map[string]methodSpec) *Options {
	hooksFor(opts).methods = m
	return opts
}

// withConn has fn see the connection Serve builds from opts.
func withConn(opts *Options, fn func(*conn)) *Options {
	hooksFor(opts).conn = fn
	return opts
}

func init() {
	testHooks.server = func(opts *Options, s *server) {
		if h, ok := hooked.Load(opts); ok && len(h.(*hooks).methods) > 0 {
			s.register(&feature{name: "test", methods: h.(*hooks).methods})
		}
	}
	testHooks.conn = func(opts *Options, c *conn) {
		if h, ok := hooked.Load(opts); ok && h.(*hooks).conn != nil {
			h.(*hooks).conn(c)
		}
	}
}
