package main

import (
	"fmt"
	"io"
)

// mcpWaitHint tells a person who ran `agent3md mcp` in a terminal what it
// is waiting for: its log lines and then silence look like a hang, while
// it waits for JSON-RPC from an MCP client on stdin. Said once, on
// stderr (stdout is the protocol stream), and only when stdin is a
// terminal: a host launching the server never sees it.
func mcpWaitHint(w io.Writer, stdin io.Reader, target string) {
	if !isTerminal(stdin) {
		return
	}
	fmt.Fprintf(w, "agent3md mcp: waiting for an MCP client on stdin (a host such as Claude Code launches this command and speaks JSON-RPC to it).\n"+
		"To try the agent by hand instead: agent3md selftest %s   (Ctrl-D or Ctrl-C ends this one)\n", shellWord(target))
}
