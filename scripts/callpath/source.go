package main

import (
	"context"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
)

// options serves file as `agent3md mcp FILE` does: opened in the
// background, the handshake answered while it loads. It is the one part
// of this program that follows mcp.Options; measuring an older commit
// means writing it in that commit's terms.
func options(file string) *mcp.Options {
	return &mcp.Options{Source: mcp.Opener(func(context.Context) (*loader.Agent, error) {
		return loader.Open(file, nil)
	}, nil)}
}
