package selftest_test

// A skills server built on the official MCP Go SDK, so the skill checks
// are also run against an implementation neither the harness nor the
// hand-written fake shares any code with: a check that fails here is a
// harness too strict for a mainstream server, or a finding about the SDK
// that the test names.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// vSDK runs the Go SDK server.
const vSDK = "sdk"

// serveSDK serves the fake's skills with the Go SDK over stdio.
func serveSDK() int {
	if err := newSDKServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Stderr.WriteString("sdk server: " + err.Error() + "\n")
	}
	return 0
}

// newSDKServer is the Go SDK server of the fake's skills, for any
// transport.
func newSDKServer() *mcp.Server {
	files := &fakeServer{variant: vSkills}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-skills", Version: "0.0.1"}, &mcp.ServerOptions{
		Capabilities:      &mcp.ServerCapabilities{},
		CompletionHandler: sdkComplete(files),
	})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return sdkRead(files, req.Params.URI)
	}
	for _, d := range files.fakeSkillDirs() {
		md := d.files[0].bytes()
		srv.AddResource(&mcp.Resource{URI: "skill://" + d.path + "/SKILL.md", Name: d.name(), Description: d.desc,
			MIMEType: "text/markdown", Size: int64(len(md))}, read)
		srv.AddResource(&mcp.Resource{URI: "skill://" + d.path + "/_manifest", Name: d.name() + "-manifest",
			MIMEType: "application/json"}, read)
		prompt := &mcp.Prompt{Name: d.name(), Description: d.desc}
		if d.name() == "deploy" {
			prompt.Arguments = []*mcp.PromptArgument{{Name: "env", Description: "where to", Required: true}}
		}
		text := d.files[0].text
		srv.AddPrompt(prompt, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			for _, a := range prompt.Arguments {
				if a.Required && req.Params.Arguments[a.Name] == "" {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "missing required argument: " + a.Name}
				}
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
		})
	}
	srv.AddResource(&mcp.Resource{URI: "skill://prompt-xml", Name: "prompt-xml", MIMEType: "application/xml"}, read)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "skill://{name}/{+path}", Name: "skill-file"}, read)
	return srv
}

// sdkRead answers a read from the fake's files.
func sdkRead(files *fakeServer, uri string) (*mcp.ReadResourceResult, error) {
	res, code, _ := files.fakeRead(uri, false)
	if code != 0 {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	raw, _ := json.Marshal(res["contents"].([]any)[0])
	var c struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
	}
	json.Unmarshal(raw, &c)
	out := &mcp.ResourceContents{URI: uri, MIMEType: c.MimeType, Text: c.Text}
	if c.Blob != "" {
		out.Blob, _ = base64.StdEncoding.DecodeString(c.Blob)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{out}}, nil
}

// sdkComplete completes deploy's env and the template's skill name.
func sdkComplete(files *fakeServer) func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		var pool []string
		switch p := req.Params; {
		case p.Ref.Type == "ref/prompt" && p.Ref.Name == "deploy":
			pool = []string{"prod", "preview", "staging"}
		case p.Ref.Type == "ref/resource" && p.Argument.Name == "name":
			for _, d := range files.fakeSkillDirs() {
				pool = append(pool, d.path)
			}
		}
		values := []string{}
		for _, v := range pool {
			if strings.HasPrefix(v, req.Params.Argument.Value) {
				values = append(values, v)
			}
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
	}
}
