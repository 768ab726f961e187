package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/fakemodel"
)

// addServers runs the README's line for a host twice, as a user would:
// once for examples/devtools.3md and once for the 1,000-skill agent. It
// runs them in another folder than the host's: the README's lines
// register a library for every folder.
func (k *hostKit) addServers(t *testing.T, exe, prefix string, env []string) {
	t.Helper()
	words := readmeLine(t, prefix)
	for _, s := range []struct{ name, agent string }{{readmeServer, k.devtools}, {bigServer, k.big}} {
		argv := serverLine(words, s.name, k.bin, s.agent)
		argv[0] = exe
		if out, errOut, err := k.runHostIn(t, k.elsewhere, env, argv...); err != nil {
			t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(argv, " "), err, out, errOut)
		}
	}
}

// claudeEnv keeps Claude Code to the fake model: no telemetry, error
// reports or update checks.
var claudeEnv = []string{"ANTHROPIC_API_KEY=test", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
	"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}

var claudeCode = &hostCase{
	name:  "Claude Code",
	model: fakemodel.Anthropic,
	tool: func(server, tool string, in map[string]any) fakemodel.Call {
		return fakemodel.Call{Name: "mcp__" + server + "__" + tool, Input: in}
	},
	listResources: func(server string) fakemodel.Call {
		return fakemodel.Call{Name: "ListMcpResourcesTool", Input: map[string]any{"server": server}}
	},
	readResource: func(server, uri string) fakemodel.Call {
		return fakemodel.Call{Name: "ReadMcpResourceTool", Input: map[string]any{"server": server, "uri": uri}}
	},
	// ReadMcpResourceTool hands the model resources/read's result as JSON.
	resourceText: jsonContents,
	overflow:     []string{"<persisted-output>", "Output too large"},
	// "# MCP Server Instructions", then "## NAME" and the instructions.
	instructionsIn: func(t *fakemodel.Turn, server string) string {
		_, after, ok := strings.Cut(t.Context(), "# MCP Server Instructions\n")
		if !ok {
			return ""
		}
		_, section, _ := strings.Cut(after, "\n## "+server+"\n")
		return section
	},
}

func init() {
	// Claude Code defers MCP tools: the model sees their names and loads
	// their schemas through ToolSearch first, as a model does.
	var names []string
	for _, tool := range mcpTools {
		names = append(names, claudeCode.tool(readmeServer, tool, nil).Name)
	}
	names = append(names, claudeCode.tool(bigServer, "list_skills", nil).Name, "ListMcpResourcesTool", "ReadMcpResourceTool")
	claudeCode.prelude = []hostStep{fixed("ToolSearch", fakemodel.Call{Name: "ToolSearch",
		Input: map[string]any{"query": "select:" + strings.Join(names, ",")}})}
}

// TestHostClaudeCode drives Claude Code (claude -p) against agent3md mcp
// added with the README's `claude mcp add` line (docs/protocol.md §13).
func TestHostClaudeCode(t *testing.T) {
	exe := hostExe(t, "claude")
	k := newHostKit(t)
	k.addServers(t, exe, "claude mcp add", claudeEnv)
	runHostScript(t, k, claudeCode, func(url string) (string, string, error) {
		env := append([]string{"ANTHROPIC_BASE_URL=" + url}, claudeEnv...)
		out, errOut, err := k.runHost(t, env, exe, "-p", hostRequest,
			"--allowedTools", "mcp__"+readmeServer, "mcp__"+bigServer, "ToolSearch", "--output-format", "json")
		var res struct {
			Result  string `json:"result"`
			IsError bool   `json:"is_error"`
		}
		if err == nil && (json.Unmarshal([]byte(out), &res) != nil || res.IsError || res.Result != "done") {
			t.Errorf("claude -p did not end with the script's final answer: %s", tail(out, 2000))
		}
		return out, errOut, err
	})
}

// codexConfig points Codex CLI at the fake model. The model is one Codex
// knows, so it applies that model's own limits (a tool answer is cut past
// 10,000 tokens) as it would for a user.
const codexConfig = `model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.fake]
name = "fake"
base_url = "URL/v1"
wire_api = "responses"
env_key = "AGENT3MD_FAKE_MODEL_KEY"
`

var codexCLI = &hostCase{
	name:  "Codex CLI",
	model: fakemodel.Responses,
	// For the models it knows, Codex defers MCP tools: the model sees the
	// namespaces' names and loads the tools through tool_search first.
	prelude: []hostStep{fixed("tool_search", fakemodel.Call{Name: "tool_search",
		Input: map[string]any{"query": strings.Join(mcpTools, " "), "limit": 20}})},
	// Codex offers a server's tools inside a namespace tool mcp__NAME.
	tool: func(server, tool string, in map[string]any) fakemodel.Call {
		return fakemodel.Call{Namespace: "mcp__" + server, Name: tool, Input: in}
	},
	listResources: func(server string) fakemodel.Call {
		return fakemodel.Call{Name: "list_mcp_resources", Input: map[string]any{"server": server}}
	},
	readResource: func(server, uri string) fakemodel.Call {
		return fakemodel.Call{Name: "read_mcp_resource", Input: map[string]any{"server": server, "uri": uri}}
	},
	// read_mcp_resource hands the model {"server","uri","contents":[…]}.
	resourceText: jsonContents,
	overflow:     []string{"tokens truncated"},
	// The namespace tool's description, as tool_search loads it, is the
	// server's instructions.
	instructionsIn: func(t *fakemodel.Turn, server string) string {
		for _, tool := range t.Tools {
			if tool.Name == "mcp__"+server && tool.Namespace == "" {
				return tool.Description
			}
		}
		return ""
	},
}

// TestHostCodexCLI drives Codex CLI (codex exec) against agent3md mcp added
// with the README's `codex mcp add` line (docs/protocol.md §13).
func TestHostCodexCLI(t *testing.T) {
	exe := hostExe(t, "codex")
	k := newHostKit(t)
	codexHome := filepath.Join(k.home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"CODEX_HOME=" + codexHome, "AGENT3MD_FAKE_MODEL_KEY=test"}
	runHostScript(t, k, codexCLI, func(url string) (string, string, error) {
		config := strings.Replace(codexConfig, "URL", url, 1)
		if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		k.addServers(t, exe, "codex mcp add", env)
		out, errOut, err := k.runHost(t, env, exe, "exec", "--skip-git-repo-check", hostRequest)
		if err == nil && strings.TrimSpace(out) != "done" {
			t.Errorf("codex exec did not end with the script's final answer: %s", tail(out, 2000))
		}
		return out, errOut, err
	})
}

var geminiCLI = &hostCase{
	name:  "Gemini CLI",
	model: fakemodel.Gemini,
	tool: func(server, tool string, in map[string]any) fakemodel.Call {
		return fakemodel.Call{Name: "mcp_" + server + "_" + tool, Input: in}
	},
	listResources: func(server string) fakemodel.Call {
		return fakemodel.Call{Name: "list_mcp_resources", Input: map[string]any{"serverName": server}}
	},
	readResource: func(_, uri string) fakemodel.Call {
		return fakemodel.Call{Name: "read_mcp_resource", Input: map[string]any{"uri": uri}}
	},
	// read_mcp_resource hands the model the text itself.
	resourceText: func(text string) (string, error) { return text, nil },
	// Gemini CLI puts the instructions in the session context, the first
	// user message.
	instructionsIn: func(t *fakemodel.Turn, _ string) string { return t.Context() },
}

// geminiSettings selects API-key auth and turns off usage statistics.
const geminiSettings = `{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}
`

// TestHostGeminiCLI drives Gemini CLI (gemini -p) against agent3md mcp
// added with the README's `gemini mcp add` line (docs/protocol.md §13).
func TestHostGeminiCLI(t *testing.T) {
	exe := hostExe(t, "gemini")
	k := newHostKit(t)
	dir := filepath.Join(k.home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(geminiSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	// The trusted folder lets gemini -p offer the tools without asking;
	// the README's --scope user line writes the user's settings.
	env := []string{"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_API_KEY=test"}
	k.addServers(t, exe, "gemini mcp add", env)
	runHostScript(t, k, geminiCLI, func(url string) (string, string, error) {
		out, errOut, err := k.runHost(t, append([]string{"GOOGLE_GEMINI_BASE_URL=" + url}, env...), exe, "-p", hostRequest)
		if err == nil && strings.TrimSpace(out) != "done" {
			t.Errorf("gemini -p did not end with the script's final answer: %s", tail(out, 2000))
		}
		return out, errOut, err
	})
}
