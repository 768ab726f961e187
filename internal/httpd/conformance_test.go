package httpd

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkEndpoint is an MCP endpoint made with the official Go SDK, standing
// in for agent3md's own adapter: it lets the conformance suite check this
// package's layer (Host and Origin rules, 405 pass-through, JSON answers)
// around a server known to speak MCP. Its own localhost protection is off,
// so the Host rule tested is ours.
func sdkEndpoint() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: "httpd-test", Version: "0.0.1"}, nil)
	type noArgs struct{}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Says nothing."},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
	s.AddResource(&mcp.Resource{URI: "skill://demo/SKILL.md", Name: "demo", Description: "A skill.", MIMEType: "text/markdown"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "demo", Description: "A prompt."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, DisableLocalhostProtection: true})
}

// TestConformanceSuite runs the official suite through
// scripts/conformance.sh when it is installed (`scripts/conformance.sh
// --install`); it never installs it itself.
func TestConformanceSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	script := "../../scripts/conformance.sh"
	if err := exec.Command("bash", script, "--installed").Run(); err != nil {
		t.Skip("conformance suite not installed: run scripts/conformance.sh --install")
	}
	r := start(t, Options{}, Endpoints{Agents: map[string]http.Handler{"demo": sdkEndpoint()}})
	url := strings.Replace(r.url, "127.0.0.1", "localhost", 1) + "/mcp"
	runs := []struct {
		name string
		args []string
	}{
		{"2025-11-25", []string{"server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"}},
		{"2026-07-28", []string{"--spec-version", "2026-07-28", "tools-list", "resources-list", "prompts-list", "dns-rebinding-protection"}},
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			out, err := exec.Command("bash", append([]string{script, "--url", url}, run.args...)...).CombinedOutput()
			if err != nil {
				t.Fatalf("conformance: %v\n%s", err, out)
			}
		})
	}
}
