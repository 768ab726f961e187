package mcp

import (
	"testing"

	"github.com/agent3md/agent3md/router"
)

// testRouterOptions keeps tests away from the user's cache directory.
func testRouterOptions(t *testing.T) *router.Options {
	return &router.Options{CacheDir: t.TempDir(), NoCache: true}
}
