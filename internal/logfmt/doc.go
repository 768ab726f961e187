// Package logfmt builds the stderr logger of the long-running commands
// (mcp, serve, sync --watch): text for people by default, JSON (one
// object a line) for log collectors with --log-format json, and never a
// field that says nothing — an attribute whose value is the empty string
// is left out, so an ordinary line does not read path="" reason="".
package logfmt
