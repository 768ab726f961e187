package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/agent3md/agent3md/internal/synth"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInteropGoSDK builds the real binary and drives `agent3md mcp` with the
// official MCP Go SDK client in every protocol revision the SDK speaks:
// connect, list the tools, call each one, and check the answers.
func TestInteropGoSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent3md binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "agent3md")
	build := exec.Command("go", "build", "-o", bin, "github.com/agent3md/agent3md/cmd/agent3md")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	agent, err := filepath.Abs(devtools)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		requested string // "" = the SDK's newest (2026-07-28, stateless)
		want      string // the revision the session must end up on
	}{
		{"stateless-2026-07-28", "", "2026-07-28"},
		{"2025-11-25", "2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05", "2024-11-05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.Command(bin, "mcp", "--cache-dir", t.TempDir(), "--log-level", "warn", agent)
			client := sdk.NewClient(&sdk.Implementation{Name: "interop-test", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: tt.requested})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			init := checkForgeHandshake(t, cs, tt.want)
			if !strings.Contains(init.Instructions, "You are Forge") {
				t.Errorf("instructions do not carry the identity plane: %.80q", init.Instructions)
			}
			checkTools(ctx, t, cs, tt.want)
			checkToolCalls(ctx, t, cs, tt.want)
			checkResourcesAndPrompts(ctx, t, cs)
			if err := cs.Close(); err != nil {
				t.Errorf("closing the session (the server must exit 0 on EOF): %v", err)
			}
		})
	}
	t.Run("skill-folders", func(t *testing.T) { interopFolders(t, bin) })
}

// checkForgeHandshake checks that the session negotiated the revision
// want with the Forge example's server, and returns its initialize result.
func checkForgeHandshake(t *testing.T, cs *sdk.ClientSession, want string) *sdk.InitializeResult {
	t.Helper()
	init := cs.InitializeResult()
	if init.ProtocolVersion != want {
		t.Errorf("negotiated %q, want %q", init.ProtocolVersion, want)
	}
	if init.ServerInfo == nil || init.ServerInfo.Name != "agent3md:Forge" {
		t.Errorf("serverInfo = %+v, want name agent3md:Forge", init.ServerInfo)
	}
	return init
}

// checkTools lists the tools and checks the revision-dependent fields.
func checkTools(ctx context.Context, t *testing.T, cs *sdk.ClientSession, version string) {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		// The body tools and route_skill declare no outputSchema: their
		// Markdown and route lines reach the model as text
		// (docs/protocol.md §4).
		textOnly := tool.Name == "get_skill" || tool.Name == "resolve_skill" || tool.Name == "route_skill"
		if version >= "2025-06-18" && (tool.Title == "" || (tool.OutputSchema == nil) != textOnly) {
			t.Errorf("%s: title %q / outputSchema %v for %s; want a title, and an outputSchema unless the tool answers text alone", tool.Name, tool.Title, tool.OutputSchema, version)
		}
		if version < "2025-06-18" && tool.OutputSchema != nil {
			t.Errorf("%s: outputSchema sent to a %s session", tool.Name, version)
		}
		a := tool.Annotations
		if version >= "2025-03-26" && (a == nil || !a.ReadOnlyHint || !a.IdempotentHint ||
			a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint) {
			t.Errorf("%s: annotations %+v, want read-only, idempotent, not destructive, closed world", tool.Name, a)
		}
	}
	want := "list_skills route_skill get_skill resolve_skill fill_skill"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("tools = %s, want %s", got, want)
	}
}

// catalog is list_skills' text as a client written for the reference
// server reads it: a top-level JSON array.
type catalog []struct {
	Name     string   `json:"name"`
	Triggers []string `json:"triggers"`
	Inputs   []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Required bool   `json:"required"`
	} `json:"inputs"`
	Tool *string  `json:"tool"`
	Deps []string `json:"deps"`
}

// call runs one tool and returns its text; isError must match wantError.
func call(ctx context.Context, t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, wantError bool) (string, *sdk.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	if res.IsError != wantError {
		t.Errorf("%s %v: isError = %v, want %v (%s)", name, args, res.IsError, wantError, text.Text)
	}
	return text.Text, res
}

func checkToolCalls(ctx context.Context, t *testing.T, cs *sdk.ClientSession, version string) {
	t.Helper()
	text, _ := call(ctx, t, cs, "list_skills", map[string]any{}, false)
	var cat catalog
	if err := json.Unmarshal([]byte(text), &cat); err != nil {
		t.Fatalf("list_skills text is not the reference's JSON array: %v", err)
	}
	if len(cat) == 0 {
		t.Fatal("list_skills gave an empty array")
	}
	withDeps, withTool := -1, -1
	for i, s := range cat {
		if withDeps < 0 && len(s.Deps) > 0 {
			withDeps = i
		}
		if withTool < 0 && s.Tool != nil && len(s.Inputs) > 0 {
			withTool = i
		}
	}
	if withDeps < 0 || withTool < 0 {
		t.Fatal("examples/devtools.3md should have a skill with dependencies and one with a command")
	}

	first := cat[0]
	text, res := call(ctx, t, cs, "route_skill", map[string]any{"text": first.Triggers[0], "mode": "spec"}, false)
	if !strings.HasPrefix(text, first.Name+"  (score ") || !strings.Contains(text, "matched: ") {
		t.Errorf("route_skill %q = %q, want a line for %s", first.Triggers[0], text, first.Name)
	}
	if res.StructuredContent != nil {
		t.Errorf("route_skill structuredContent = %v for %s; want the lines as text alone", res.StructuredContent, version)
	}
	text, _ = call(ctx, t, cs, "route_skill", map[string]any{"text": "zzqx vvkw"}, false)
	if text != "no skill matched" {
		t.Errorf("route_skill on nonsense = %q", text)
	}

	text, res = call(ctx, t, cs, "get_skill", map[string]any{"name": first.Name}, false)
	if strings.TrimSpace(text) == "" {
		t.Errorf("get_skill %s: empty body", first.Name)
	}
	if res.StructuredContent != nil {
		t.Errorf("get_skill structuredContent = %v for %s; want the body as text alone", res.StructuredContent, version)
	}
	text, _ = call(ctx, t, cs, "get_skill", map[string]any{"name": first.Name + "x"}, true)
	if !strings.Contains(text, "closest: "+first.Name) {
		t.Errorf("unknown skill answer does not offer %s: %q", first.Name, text)
	}

	dep := cat[withDeps]
	text, _ = call(ctx, t, cs, "resolve_skill", map[string]any{"name": dep.Name}, false)
	if !strings.HasPrefix(text, "### "+dep.Name+"\n") || !strings.Contains(text, "\n\n### "+dep.Deps[0]+"\n") {
		t.Errorf("resolve_skill %s = %.120q…, want its section then %s's", dep.Name, text, dep.Deps[0])
	}

	tool := cat[withTool]
	values := map[string]any{}
	for _, in := range tool.Inputs {
		values[in.Name] = sampleValue(in.Type)
	}
	text, _ = call(ctx, t, cs, "fill_skill", map[string]any{"name": tool.Name, "values": values}, false)
	if !strings.HasPrefix(text, "command: ") || !strings.Contains(text, "ready: true") {
		t.Errorf("fill_skill %s = %q, want a ready command", tool.Name, text)
	}
	call(ctx, t, cs, "route_skill", map[string]any{"text": 42}, true)

	checkConcurrentCalls(ctx, t, cs, cat)

	_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("unknown tool: err = %v, want a JSON-RPC error naming it", err)
	}
	if errors.Is(err, sdk.ErrConnectionClosed) {
		t.Error("an unknown tool closed the connection")
	}
}

// checkConcurrentCalls fires get_skill for every skill at once and checks
// each answer belongs to its own request.
func checkConcurrentCalls(ctx context.Context, t *testing.T, cs *sdk.ClientSession, cat catalog) {
	t.Helper()
	var wg sync.WaitGroup
	for _, s := range cat {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "resolve_skill", Arguments: map[string]any{"name": name}})
			if err != nil {
				t.Errorf("concurrent resolve_skill %s: %v", name, err)
				return
			}
			text, ok := res.Content[0].(*sdk.TextContent)
			if !ok {
				t.Errorf("concurrent resolve_skill %s: content is %T", name, res.Content[0])
			} else if !strings.HasPrefix(text.Text, "### "+name+"\n") {
				t.Errorf("concurrent resolve_skill %s got another answer: %.60q", name, text.Text)
			}
		}(s.Name)
	}
	wg.Wait()
}

// sampleValue is a valid value of an agent3md/1 input type.
func sampleValue(typ string) any {
	switch typ {
	case "number":
		return 3
	case "boolean":
		return true
	case "object":
		return map[string]any{"k": "v"}
	case "array":
		return []any{"a", 1}
	}
	return "main.go"
}

// checkResourcesAndPrompts lists and reads every skill resource (paging
// through the SDK's iterator), reads the alias and the templates, lists and
// gets the prompts, and completes a skill name, all through the SDK's own
// types, so a field it cannot decode fails here.
func checkResourcesAndPrompts(ctx context.Context, t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	skills := 0
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		if !strings.HasSuffix(r.URI, "/SKILL.md") {
			continue
		}
		skills++
		if r.MIMEType != "text/markdown" || r.Name == "" {
			t.Errorf("%s: mimeType %q name %q", r.URI, r.MIMEType, r.Name)
		}
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: r.URI})
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("read %s: %v %+v", r.URI, err, res)
		}
		text := res.Contents[0].Text
		if !strings.HasPrefix(text, "---\nname: \""+r.Name+"\"") || int64(len(text)) != r.Size {
			t.Errorf("%s: read %d bytes starting %.40q; listed name %q size %d", r.URI, len(text), text, r.Name, r.Size)
		}
		alias, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "skill://" + r.Name})
		if err != nil || alias.Contents[0].Text != text {
			t.Errorf("skill://%s does not read as its SKILL.md: %v", r.Name, err)
		}
	}
	if skills == 0 {
		t.Fatal("resources/list names no skill://…/SKILL.md")
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "skill://no-such-skill/SKILL.md"}); err == nil {
		t.Error("reading an unknown skill succeeded")
	}
	tpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tpl.ResourceTemplates) == 0 {
		t.Fatalf("resources/templates/list: %v %+v", err, tpl)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) < 2 {
		t.Fatalf("prompts/list: %v %+v", err, prompts)
	}
	for _, p := range prompts.Prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Required {
				args[a.Name] = "x"
			}
		}
		got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: p.Name, Arguments: args})
		if err != nil || len(got.Messages) == 0 {
			t.Errorf("prompts/get %s: %v", p.Name, err)
		}
	}
	name := prompts.Prompts[1].Name
	comp, err := cs.Complete(ctx, &sdk.CompleteParams{
		Ref:      &sdk.CompleteReference{Type: "ref/resource", URI: "skill://{name}/SKILL.md"},
		Argument: sdk.CompleteParamsArgument{Name: "name", Value: name[:2]},
	})
	if err != nil || !slices.Contains(comp.Completion.Values, name) {
		t.Errorf("completion of %q: %v %+v", name[:2], err, comp)
	}
}

// interopFolders serves a skills folder (the loader's fixture plus a
// binary asset) and drives it with the SDK client in the newest and the
// last legacy revision: the same tools, every file read byte for byte
// (the asset as a blob), and the selftest, by directory and by --server.
func interopFolders(t *testing.T, bin string) {
	dir := folderFixture(t)
	for _, version := range []string{"", "2025-11-25"} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.Command(bin, "mcp", "--cache-dir", t.TempDir(), "--log-level", "warn", dir)
		client := sdk.NewClient(&sdk.Implementation{Name: "interop-test", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			cancel()
			t.Fatalf("connect: %v", err)
		}
		init := cs.InitializeResult()
		if init.ServerInfo == nil || !strings.Contains(init.Instructions, "A small agent made of skill folders") {
			t.Errorf("%s: serverInfo %+v, instructions %.80q: want AGENT.md as the identity", version, init.ServerInfo, init.Instructions)
		}
		checkTools(ctx, t, cs, init.ProtocolVersion)
		checkToolCalls(ctx, t, cs, init.ProtocolVersion)
		files := 0
		for _, slug := range []string{"build", "deploy", "lint"} {
			res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "skill://" + slug + "/_manifest"})
			if err != nil {
				t.Fatalf("%s manifest: %v", slug, err)
			}
			var m struct{ Files []struct{ Path, Hash string } }
			if err := json.Unmarshal([]byte(res.Contents[0].Text), &m); err != nil {
				t.Fatal(err)
			}
			for _, f := range m.Files {
				res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "skill://" + slug + "/" + f.Path})
				if err != nil || len(res.Contents) != 1 {
					t.Fatalf("read %s/%s: %v", slug, f.Path, err)
				}
				c := res.Contents[0]
				data := []byte(c.Text)
				if c.Blob != nil {
					data = c.Blob
				}
				want, _ := os.ReadFile(filepath.Join(dir, slug, filepath.FromSlash(f.Path)))
				if !bytes.Equal(data, want) {
					t.Errorf("%s/%s: read bytes differ from the file on disk", slug, f.Path)
				}
				if f.Path == "assets/logo.png" && (c.Blob == nil || c.MIMEType != "image/png") {
					t.Errorf("%s/%s: mimeType %q, blob %v: want an image/png blob", slug, f.Path, c.MIMEType, c.Blob != nil)
				}
				files++
			}
		}
		if files < 7 {
			t.Errorf("%d files read", files)
		}
		if err := cs.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
		cancel()
	}
	for _, args := range [][]string{
		{"selftest", dir},
		{"selftest", "--server", bin + " mcp --no-cache " + dir},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), " 0 failed") {
			t.Errorf("%q: %v\n%s", args, err, out)
		}
	}
}

// folderFixture copies ../../loader/testdata/folders to a temporary
// folder and adds a binary asset (none is committed).
func folderFixture(t *testing.T) string {
	t.Helper()
	dst := synth.CopyDir(t, filepath.Join("..", "..", "loader", "testdata", "folders"))
	err := os.MkdirAll(filepath.Join(dst, "lint", "assets"), 0o755)
	if err == nil {
		err = os.WriteFile(filepath.Join(dst, "lint", "assets", "logo.png"), []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0xff}, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
