package selftest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent3md/agent3md/selftest"
)

// TestRunOverHTTPAgainstGoSDK drives the official Go SDK's Streamable
// HTTP handler (go.mod's version), which shares no code with the harness,
// in each of its modes: a check that fails here is a finding about the
// SDK the test names, or a harness too strict for a mainstream server.
func TestRunOverHTTPAgainstGoSDK(t *testing.T) {
	// As over stdio: no tools, no skills extension.
	skips := join([]string{"tools/list", "tools/call", "modern/tools-list", "modern/skills"}, contractChecks,
		[]string{"error/unknown-tool", "error/missing-argument", "skills/list", "skills/unknown"}, skillsEntryChecks,
		stdioOnlyChecks, []string{"http/auth"})
	// Findings in every mode: an unknown method is a plain-text 400, not
	// a -32601 answer; a request naming an unknown revision in
	// MCP-Protocol-Version is a plain-text 400, not -32022; and a foreign
	// Origin is served (the SDK checks Host at loopback, but Origin only
	// when configured to).
	findings := []string{"probe/unknown-method", "modern/unsupported-version", "http/origin"}
	for _, tt := range []struct {
		name     string
		opts     mcp.StreamableHTTPOptions
		wantFail []string
	}{
		{"stateless, event streams", mcp.StreamableHTTPOptions{Stateless: true}, findings},
		{"stateless, JSON", mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}, findings},
		// Stateful, the SDK mints a session id (the harness follows it) and
		// answers GET without one with 400; a sessionless 2026-07-28
		// request gets a session whose server/discover lacks 2026-07-28.
		{"stateful", mcp.StreamableHTTPOptions{}, join(findings, []string{"modern/discover", "modern/resources",
			"http/get", "http/session-id", "http/header-mismatch"})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSDKServer()
			ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &tt.opts))
			defer ts.Close()
			// Long enough for a loaded machine; nothing here waits it out.
			rep, err := selftest.Run(context.Background(), &selftest.Options{URL: ts.URL, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			rep.WriteText(&text)
			checkRun(t, rep, httpRunChecks, tt.wantFail, skips, text.String())
		})
	}
}
