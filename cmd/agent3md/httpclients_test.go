package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"
)

// Each HTTP client this product is for, replayed against the real binary
// with the headers and calls it sends (docs/http.md §8): a skill-provider
// client, a chat platform's connector and the official Go SDK.

// httpClient sends JSON-RPC requests the way one client does: its own
// headers on every POST, one request per POST, nothing remembered between
// them (no session).
type httpClient struct {
	t       *testing.T
	url     string // the endpoint, ending in /mcp
	http    *http.Client
	headers map[string]string
	nextID  int
}

// post sends one request and returns the raw response and body.
func (c *httpClient) post(method string, params any) (*http.Response, []byte) {
	c.t.Helper()
	c.nextID++
	msg := map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(b))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("%s: reading the answer: %v", method, err)
	}
	return resp, body
}

// call sends one request that must succeed (200, a result, its own id,
// no session id) and decodes its result into out.
func (c *httpClient) call(method string, params, out any) {
	c.t.Helper()
	resp, body := c.post(method, params)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("%s: status %d, want 200: %s", method, resp.StatusCode, body)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.t.Errorf("%s: the answer minted a session id %q; the server is stateless", method, sid)
	}
	a, err := decodeAnswer(resp, body)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	if string(a.ID) != fmt.Sprint(c.nextID) {
		c.t.Errorf("%s: answer id %s, want %d", method, a.ID, c.nextID)
	}
	if a.Error != nil {
		c.t.Fatalf("%s: error %d %s", method, a.Error.Code, a.Error.Message)
	}
	if err := json.Unmarshal(a.Result, out); err != nil {
		c.t.Fatalf("%s: result %.300s: %v", method, a.Result, err)
	}
}

// TestServeSkillProviderClient replays the skill-provider client: a
// stateless POST to <url>/mcp with Content-Type and Accept both
// application/json, MCP-Protocol-Version 2024-11-05 and a bearer key only
// when one is configured, a 5 s timeout; initialize, resources/list, then
// resources/read of skill://<name> for each listed skill, whose text must be
// Markdown with YAML frontmatter naming that skill.
func TestServeSkillProviderClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent3md binary; skipped with -short")
	}
	agent, err := filepath.Abs(devtools)
	if err != nil {
		t.Fatal(err)
	}
	const token = "skill-provider-key-0123456789abcdef"
	tests := []struct {
		name  string
		token string // "" = no key configured on either side
		https bool
	}{
		{"http-no-key", "", false},
		{"http-key", token, false},
		{"https-key", token, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"--no-watch"}
			transport := &http.Transport{}
			scheme := "http"
			if tt.token != "" {
				args = append(args, "--token-file", writeTokenFile(t, tt.token))
			}
			if tt.https {
				pki := newTestPKI(t, "127.0.0.1")
				args = append(args, "--tls-cert", pki.certFile, "--tls-key", pki.keyFile)
				transport.TLSClientConfig = pki.tlsConfig()
				scheme = "https"
			}
			s := startServe(t, append(args, agent)...)
			base := scheme + "://" + s.addr // what the user configures; the client appends /mcp
			c := &httpClient{t: t, url: base + "/mcp", http: &http.Client{Timeout: 5 * time.Second, Transport: transport},
				headers: map[string]string{
					"Content-Type":         "application/json",
					"Accept":               "application/json",
					"MCP-Protocol-Version": "2024-11-05",
				}}
			if tt.token != "" {
				// Without its key first: 401 and a Bearer challenge.
				resp, body := c.post("initialize", skillProviderInit())
				if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("no key: status %d, WWW-Authenticate %q, want 401 Bearer: %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
				}
				c.headers["Authorization"] = "Bearer " + tt.token + "x"
				if resp, _ := c.post("resources/list", nil); resp.StatusCode != http.StatusUnauthorized {
					t.Fatalf("wrong key: status %d, want 401", resp.StatusCode)
				}
				c.headers["Authorization"] = "Bearer " + tt.token
			}
			replaySkillProvider(t, c)
			if strings.Contains(s.log(), token) {
				t.Error("the server logged the bearer key")
			}
		})
	}
}

func skillProviderInit() map[string]any {
	return map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "skill-provider", "version": "1.0"}}
}

// replaySkillProvider is the client's own sequence once it is let in.
func replaySkillProvider(t *testing.T, c *httpClient) {
	t.Helper()
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"serverInfo"`
	}
	c.call("initialize", skillProviderInit(), &init)
	if init.ProtocolVersion != "2024-11-05" || init.ServerInfo.Name == "" || init.ServerInfo.Version == "" {
		t.Errorf("initialize: %+v, want 2024-11-05 with a server name and version", init)
	}
	var list struct {
		Resources []struct {
			URI, Name, MIMEType string
		} `json:"resources"`
		NextCursor string `json:"nextCursor"`
	}
	c.call("resources/list", map[string]any{}, &list)
	if list.NextCursor != "" {
		t.Errorf("resources/list of an 11-skill agent pages (%q); this client reads one page", list.NextCursor)
	}
	skills := 0
	for _, r := range list.Resources {
		// The client's rule: every skill:// resource is a skill named by its
		// name (text/markdown is the fallback). It reads skill://<name> and
		// silently drops what fails or is not a skill, so the skill-provider
		// convention's other skill:// resources (prompt-xml, each _manifest)
		// must be answered cleanly, and never as some skill's SKILL.md.
		isSkill := strings.HasPrefix(r.URI, "skill://") && strings.HasSuffix(r.URI, "/SKILL.md")
		if r.MIMEType == "text/markdown" && !isSkill {
			t.Errorf("%s is text/markdown but not a skill: such clients would take it for one", r.URI)
		}
		if r.URI == "skill://"+r.Name && r.MIMEType == "text/markdown" {
			t.Errorf("%s, the alias of a skill, is listed: the client would see that skill twice", r.URI)
		}
		if !strings.HasPrefix(r.URI, "skill://") {
			continue
		}
		if !isSkill {
			resp, body := c.post("resources/read", map[string]any{"uri": "skill://" + r.Name})
			if resp.StatusCode != http.StatusOK {
				t.Errorf("skill://%s (listed as %s): status %d: %s", r.Name, r.URI, resp.StatusCode, body)
			} else if a, err := decodeAnswer(resp, body); err != nil {
				t.Errorf("skill://%s: %v", r.Name, err)
			} else if a.Error == nil && strings.Contains(string(a.Result), `"text/markdown"`) {
				t.Errorf("skill://%s (listed as %s, %s) reads as Markdown: %.200s", r.Name, r.URI, r.MIMEType, a.Result)
			}
			continue
		}
		skills++
		var read struct {
			Contents []struct {
				URI, MIMEType, Text string
			} `json:"contents"`
		}
		c.call("resources/read", map[string]any{"uri": "skill://" + r.Name}, &read)
		if len(read.Contents) == 0 {
			t.Fatalf("skill://%s: no contents", r.Name)
		}
		fm, err := frontmatterOf(read.Contents[0].Text)
		if err != nil {
			t.Errorf("skill://%s: %v", r.Name, err)
			continue
		}
		if fm.Name != r.Name || fm.Description == "" {
			t.Errorf("skill://%s: frontmatter name %q description %q; want the listed name and a description", r.Name, fm.Name, fm.Description)
		}
	}
	if skills != 11 {
		t.Errorf("resources/list named %d skills, want the 11 of examples/devtools.3md", skills)
	}
}

// frontmatterOf parses the YAML frontmatter that opens a SKILL.md.
func frontmatterOf(text string) (fm struct{ Name, Description string }, err error) {
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return fm, fmt.Errorf("text does not open with a YAML frontmatter: %.60q", text)
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return fm, fmt.Errorf("frontmatter never closes: %.60q", text)
	}
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		return fm, fmt.Errorf("frontmatter is not YAML: %v", err)
	}
	if strings.TrimSpace(body) == "" {
		return fm, fmt.Errorf("no Markdown body after the frontmatter")
	}
	return fm, nil
}

// TestServeChatPlatformClient replays a chat platform's MCP connector: it
// only speaks HTTPS to a public name with a certificate it trusts, sends its
// API key as a bearer token plus the operator's custom headers, and calls
// tools/list and tools/call with no initialize. Its tool converter accepts
// plain JSON Schema objects only. The public name is played by
// mcp.example.test, dialled to loopback and let in with --allow-host (as
// behind a proxy, docs/http.md §3).
func TestServeChatPlatformClient(t *testing.T) {
	agent, err := filepath.Abs(devtools)
	if err != nil {
		t.Fatal(err)
	}
	const host, token = "mcp.example.test", "chat-platform-key-0123456789abcdef"
	pki := newTestPKI(t, host)
	s := startServe(t, "--no-watch", "--token-file", writeTokenFile(t, "an-old-token-0123456789abcdef", token),
		"--tls-cert", pki.certFile, "--tls-key", pki.keyFile, "--allow-host", host, agent)
	// Such connectors run on HTTP/2 stacks when the server offers it
	// (docs/http.md §4): the whole replay goes over HTTP/2.
	transport := &http.Transport{
		TLSClientConfig:   pki.tlsConfig(),
		ForceAttemptHTTP2: true,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, s.addr)
		},
	}
	c := &httpClient{t: t, url: "https://" + host + ":" + s.port() + "/mcp",
		http: &http.Client{Timeout: 300 * time.Second, Transport: transport},
		headers: map[string]string{
			"Content-Type": "application/json",
			"Accept":       "application/json, text/event-stream",
			"X-Team":       "a",
		}}
	if resp, body := c.post("tools/list", nil); resp.StatusCode != http.StatusUnauthorized || resp.ProtoMajor != 2 {
		t.Fatalf("tools/list without the key: status %d over %s, want 401 over HTTP/2: %s", resp.StatusCode, resp.Proto, body)
	}
	c.headers["Authorization"] = "Bearer " + token

	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	c.call("tools/list", nil, &list)
	if len(list.Tools) != 5 {
		t.Fatalf("tools/list: %d tools, want 5", len(list.Tools))
	}
	var first string
	for _, tool := range list.Tools {
		if tool.Description == "" {
			t.Errorf("%s: no description for the model", tool.Name)
		}
		checkProviderSchema(t, tool.Name, tool.InputSchema)
	}
	var skills []struct {
		Name     string   `json:"name"`
		Triggers []string `json:"triggers"`
	}
	text := callTool(t, c, "list_skills", map[string]any{})
	if err := json.Unmarshal([]byte(text), &skills); err != nil || len(skills) == 0 {
		t.Fatalf("list_skills: %v: %.200s", err, text)
	}
	first = skills[0].Name
	calls := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"route_skill", map[string]any{"text": skills[0].Triggers[0]}, first},
		{"get_skill", map[string]any{"name": first}, ""},
		{"resolve_skill", map[string]any{"name": first}, "### " + first},
		{"fill_skill", map[string]any{"name": "search-code", "values": map[string]any{"pattern": "parseConfig", "path": "."}}, "command: "},
	}
	for _, cl := range calls {
		if got := callTool(t, c, cl.tool, cl.args); !strings.Contains(got, cl.want) {
			t.Errorf("%s %v = %.200q, want it to contain %q", cl.tool, cl.args, got, cl.want)
		}
	}
}

// callTool runs tools/call {name, arguments} and returns its text; a tool
// error fails the test.
func callTool(t *testing.T, c *httpClient, name string, args map[string]any) string {
	t.Helper()
	var res struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	c.call("tools/call", map[string]any{"name": name, "arguments": args}, &res)
	if len(res.Content) == 0 || res.Content[0].Type != "text" || res.IsError {
		t.Fatalf("tools/call %s: %+v", name, res)
	}
	return res.Content[0].Text
}

// checkProviderSchema holds an inputSchema to what model providers' tool
// formats accept: a JSON Schema object with type object, properties as an
// object, required (when present) an array of declared property names, no
// references or top-level combinators, and a type on every property.
func checkProviderSchema(t *testing.T, tool string, s map[string]any) {
	t.Helper()
	if s["type"] != "object" {
		t.Errorf("%s: inputSchema type %v, want object", tool, s["type"])
	}
	props, ok := s["properties"].(map[string]any)
	if !ok {
		t.Errorf("%s: inputSchema properties %T, want an object", tool, s["properties"])
	}
	for _, k := range []string{"$ref", "$defs", "definitions", "oneOf", "anyOf", "allOf", "not", "if"} {
		if _, bad := s[k]; bad {
			t.Errorf("%s: inputSchema has %s at the top level; providers' converters refuse it", tool, k)
		}
	}
	if req, present := s["required"]; present {
		list, ok := req.([]any)
		if !ok {
			t.Errorf("%s: required is %T, want an array", tool, req)
		}
		for _, r := range list {
			name, _ := r.(string)
			if _, ok := props[name]; !ok {
				t.Errorf("%s: required names %v, not a property", tool, r)
			}
		}
	}
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			t.Errorf("%s.%s: property schema is %T", tool, name, p)
			continue
		}
		if _, typed := pm["type"]; !typed {
			t.Errorf("%s.%s: property has no type", tool, name)
		}
		if _, ref := pm["$ref"]; ref {
			t.Errorf("%s.%s: property uses $ref", tool, name)
		}
	}
	if b, err := json.Marshal(s); err != nil || strings.Contains(string(b), `"$ref"`) {
		t.Errorf("%s: inputSchema does not encode as plain JSON Schema: %v %s", tool, err, b)
	}
}

// bearer adds a token to every request of a client that has no header
// option of its own (the Go SDK's transport takes an *http.Client).
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestServeGoSDKStreamableHTTP connects the official Go SDK's Streamable
// HTTP client to `agent3md serve` in every revision it speaks, and runs the
// same checks as the stdio interop test: tools listed and called, resources
// listed and read, prompts, completion. Two runs go over HTTPS (HTTP/2)
// with a token.
func TestServeGoSDKStreamableHTTP(t *testing.T) {
	agent, err := filepath.Abs(devtools)
	if err != nil {
		t.Fatal(err)
	}
	const token = "go-sdk-key-0123456789abcdef"
	pki := newTestPKI(t, "127.0.0.1")
	plain := startServe(t, agent)
	secure := startServe(t, "--token-file", writeTokenFile(t, token), "--tls-cert", pki.certFile, "--tls-key", pki.keyFile, agent)
	tests := []struct {
		name      string
		requested string // "" = the SDK's newest
		want      string
		https     bool
	}{
		{"newest", "", "2026-07-28", false},
		{"2025-11-25", "2025-11-25", "2025-11-25", false},
		{"2025-06-18", "2025-06-18", "2025-06-18", false},
		{"2025-03-26", "2025-03-26", "2025-03-26", false},
		{"2024-11-05", "2024-11-05", "2024-11-05", false},
		{"https-token-newest", "", "2026-07-28", true},
		{"https-token-2025-11-25", "2025-11-25", "2025-11-25", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			tr := &sdk.StreamableClientTransport{Endpoint: "http://" + plain.addr + "/mcp", MaxRetries: -1}
			if tt.https {
				tr.Endpoint = "https://" + secure.addr + "/mcp"
				tr.HTTPClient = &http.Client{Transport: bearer{token, &http.Transport{TLSClientConfig: pki.tlsConfig(), ForceAttemptHTTP2: true}}}
			}
			client := sdk.NewClient(&sdk.Implementation{Name: "interop-http-test", Version: "1"}, nil)
			cs, err := client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: tt.requested})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			checkForgeHandshake(t, cs, tt.want)
			checkTools(ctx, t, cs, tt.want)
			checkToolCalls(ctx, t, cs, tt.want)
			checkResourcesAndPrompts(ctx, t, cs)
			if err := cs.Close(); err != nil {
				t.Errorf("closing the session: %v", err)
			}
		})
	}
	if strings.Contains(plain.log()+secure.log(), "status=5") {
		t.Errorf("a request was answered 5xx:\n%s%s", plain.log(), secure.log())
	}
}

// TestServeListenOverHTTP2: a 2026-07-28 subscriptions/listen stream over
// HTTPS and HTTP/2 is acknowledged, carries the list changes of a reload
// (the agent file replaced by rename), and on SIGTERM gets its answer and
// ends cleanly while the process exits 0 (docs/http.md §7).
func TestServeListenOverHTTP2(t *testing.T) {
	src, err := os.ReadFile(devtools)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	agent := filepath.Join(dir, "devtools.3md")
	if err := os.WriteFile(agent, src, 0o644); err != nil {
		t.Fatal(err)
	}
	pki := newTestPKI(t, "127.0.0.1")
	s := startServe(t, "--tls-cert", pki.certFile, "--tls-key", pki.keyFile, agent)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: pki.tlsConfig(), ForceAttemptHTTP2: true}}
	resp, err := client.Get("https://" + s.addr + "/healthz")
	if err != nil || resp.ProtoMajor != 2 {
		t.Fatalf("/healthz over HTTPS: %v %v; want HTTP/2", err, resp)
	}
	resp.Body.Close()
	events, closeStream := openListenWith(t, client, "https://"+s.addr+"/mcp")
	defer closeStream()

	edited := strings.Replace(string(src), "# Search the code", "# Search the code base", 1)
	if err := os.WriteFile(filepath.Join(dir, ".devtools.tmp"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, ".devtools.tmp"), agent); err != nil {
		t.Fatal(err)
	}
	waitLine := func(what, want string) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case line, ok := <-events:
				if !ok {
					t.Fatalf("the stream ended before %s; server log:\n%s", what, s.log())
				}
				if strings.Contains(line, want) {
					return
				}
			case <-timeout:
				t.Fatalf("no %s within 30s; server log:\n%s", what, s.log())
			}
		}
	}
	waitLine("list change after the reload", "notifications/tools/list_changed")

	s.cmd.Process.Signal(syscall.SIGTERM)
	waitLine("answer to the listen request at shutdown", `"id":"listen-1"`)
	for range events { // the stream must end
	}
	select {
	case <-s.done:
		if s.err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", s.err, s.log())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not exit within 30s of SIGTERM:\n%s", s.log())
	}
}

// TestServeReplicas: two `agent3md serve` processes on the same file, each
// with its own cache, stand in for replicas behind a load balancer without
// sticky sessions (docs/http.md §10). The same request gets the same bytes
// from both (no per-process id leaks into an answer), and a client that
// pages through resources/list and skills/list hopping between them gets
// every entry once.
func TestServeReplicas(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\n3md: 1.0\ntitle: Replicas\nagent: replicas\n---\n@plane z=0 kind=identity\n# Replicas\n\nMany small skills.\n")
	const n = 130 // two pages of resources/list (100), three of skills/list (50)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\n@plane z=%d label=\"chore-%03d\" kind=skill triggers=\"chore %d, do chore %d\"\n# Chore %d\n\nUse this to do chore %d.\n", i, i, i, i, i, i)
	}
	agent := filepath.Join(t.TempDir(), "replicas.3md")
	if err := os.WriteFile(agent, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	replicas := []*served{startServe(t, "--no-watch", agent), startServe(t, "--no-watch", agent)}
	clients := make([]*httpClient, len(replicas))
	for i, s := range replicas {
		clients[i] = &httpClient{t: t, url: "http://" + s.addr + "/mcp", http: &http.Client{Timeout: 30 * time.Second},
			headers: map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}}
	}
	modern := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	same := []struct {
		method string
		params map[string]any
		modern bool // 2026-07-28: its headers too
	}{
		{"initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "lb", "version": "1"}}, false},
		{"tools/list", nil, false},
		{"resources/list", nil, false},
		{"skills/list", nil, false},
		{"prompts/list", nil, false},
		{"tools/call", map[string]any{"name": "route_skill", "arguments": map[string]any{"text": "do chore 42"}}, false},
		{"tools/call", map[string]any{"name": "list_skills", "arguments": map[string]any{}}, false},
		{"resources/read", map[string]any{"uri": "skill://chore-042/_manifest"}, false},
		{"server/discover", map[string]any{"_meta": modern}, true},
		{"tools/list", map[string]any{"_meta": modern}, true},
	}
	for _, q := range same {
		var bodies []string
		for _, c := range clients {
			c.nextID = 0   // the same id on both
			var params any // a nil map would be sent as "params": null
			if q.params != nil {
				params = q.params
			}
			if q.modern {
				c.headers["MCP-Protocol-Version"], c.headers["Mcp-Method"] = "2026-07-28", q.method
			}
			resp, body := c.post(q.method, params)
			delete(c.headers, "MCP-Protocol-Version")
			delete(c.headers, "Mcp-Method")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: status %d: %s", q.method, resp.StatusCode, body)
			}
			bodies = append(bodies, string(body))
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s answered differently by two replicas of one file:\n%.400s\n%.400s", q.method, bodies[0], bodies[1])
		}
	}
	// Page through, each page from the other replica.
	for _, list := range []struct{ method, field, key string }{{"resources/list", "resources", "uri"}, {"skills/list", "skills", "uri"}} {
		seen := map[string]bool{}
		cursor, pages := "", 0
		for {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			var page map[string]any
			clients[pages%2].call(list.method, params, &page)
			pages++
			entries, _ := page[list.field].([]any)
			for _, e := range entries {
				key, _ := e.(map[string]any)[list.key].(string)
				if seen[key] {
					t.Errorf("%s: %s listed twice", list.method, key)
				}
				seen[key] = true
			}
			cursor, _ = page["nextCursor"].(string)
			if cursor == "" || pages > 10 {
				break
			}
		}
		skills := 0
		for k := range seen {
			if strings.HasSuffix(k, "/SKILL.md") {
				skills++
			}
		}
		if skills != n || pages < 2 {
			t.Errorf("%s across replicas: %d skills in %d pages, want %d in several", list.method, skills, pages, n)
		}
	}
}

// TestServeListenersDoNotStarveRequests: a 2026-07-28 client holds a
// subscriptions/listen stream open for as long as it is connected (the Go
// SDK opens one by itself on a watched agent). With --max-concurrent 2,
// two such clients once took every slot and each further request, theirs
// included, got 503. Streams now count against --max-streams, and past it
// a listen is the one refused, naming the flag.
func TestServeListenersDoNotStarveRequests(t *testing.T) {
	agent, err := filepath.Abs(devtools)
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, "--max-concurrent", "2", "--max-streams", "2", agent)
	url := "http://" + s.addr + "/mcp"
	for range 2 {
		_, closeStream := openListenWith(t, http.DefaultClient, url)
		defer closeStream()
	}
	c := &httpClient{t: t, url: url, http: http.DefaultClient, headers: map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}}
	var tools struct{ Tools []struct{ Name string } }
	c.call("tools/list", nil, &tools)
	if len(tools.Tools) == 0 {
		t.Fatal("tools/list beside two open streams listed no tools")
	}
	c.headers["MCP-Protocol-Version"], c.headers["Mcp-Method"] = "2026-07-28", "subscriptions/listen"
	resp, body := c.post("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true},
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "--max-streams") {
		t.Errorf("a third listen: status %d %s; want 503 naming --max-streams", resp.StatusCode, body)
	}
}
