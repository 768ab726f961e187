package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/internal/httpd"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcpclient"
	"github.com/agent3md/agent3md/selftest"
)

// httpClientFlags are the flags of a command that talks to an MCP server
// over HTTP: the endpoint (selftest's --url; sync takes it as an
// argument), the bearer token and the extra CA certificates
// (docs/selftest.md §7, docs/sync.md).
type httpClientFlags struct {
	url       string
	tokenFile string
	caFile    string
}

func (h *httpClientFlags) addFlags(c *cobra.Command) {
	c.Flags().StringVar(&h.url, "url", "", "test the Streamable HTTP endpoint at URL (e.g. http://127.0.0.1:8765/mcp) instead of spawning a server")
	c.Flags().StringVar(&h.tokenFile, "token-file", "", "with --url: send the first bearer token in FILE (one a line, # comments); default $"+httpd.TokenEnv)
	c.Flags().StringVar(&h.caFile, "ca-file", "", "with --url: also trust the PEM CA certificates in FILE (an https server with a private or test certificate)")
}

// apply checks the flags' combinations and fills the HTTP fields of opts.
func (h *httpClientFlags) apply(opts *selftest.Options, server string) error {
	if h.url == "" {
		if h.tokenFile != "" || h.caFile != "" {
			return ioError(fmt.Errorf("--token-file and --ca-file go with --url URL (they configure the HTTP client)"))
		}
		return nil
	}
	if server != "" {
		return ioError(fmt.Errorf("--url and --server: test one server at a time"))
	}
	opts.URL = h.url
	token, err := h.token()
	if err != nil {
		return err
	}
	opts.Token = token
	hc, err := h.httpClient()
	if err != nil {
		return err
	}
	opts.HTTPClient = hc
	return nil
}

// token is the first token of --token-file, else $AGENT3MD_TOKEN, else "".
func (h *httpClientFlags) token() (string, error) {
	if h.tokenFile == "" {
		return os.Getenv(httpd.TokenEnv), nil
	}
	toks, err := httpd.ReadTokenFile(h.tokenFile)
	if err != nil {
		return "", ioError(fmt.Errorf("--token-file: %w", err))
	}
	return toks[0], nil
}

// httpClient is an HTTP client trusting --ca-file beside the system's roots.
// The file is read as the token file is (httpd.ReadCAFile): a regular
// file only, opened without blocking, bounded in size and time, so a
// named pipe given by mistake is refused at once instead of hanging the
// command where SIGTERM cannot reach it.
func (h *httpClientFlags) httpClient() (*http.Client, error) {
	if h.caFile == "" {
		return nil, nil // selftest's default
	}
	pem, err := httpd.ReadCAFile(h.caFile)
	if err != nil {
		return nil, ioError(credentialFlagError(err))
	}
	hc, err := mcpclient.HTTPClientWithCA(pem)
	if err != nil {
		return nil, ioError(fmt.Errorf("--ca-file %s: %w", h.caFile, err))
	}
	return hc, nil
}

// selftestExpect opens the agent at path so the run holds the server's
// bodies to what the library reads; the caller closes it.
func (a *app) selftestExpect(ctx context.Context, path string, opts *selftest.Options) (func(), error) {
	ag, err := a.open(path)
	if err != nil {
		return nil, err
	}
	expectFrom(ctx, ag, opts)
	return func() { ag.Close() }, nil
}

// expectFrom holds a run's bodies and resolve chains to ag's.
func expectFrom(ctx context.Context, ag *loader.Agent, opts *selftest.Options) {
	opts.Expect = func(name string) (string, bool) {
		body, err := ag.Body(ctx, name)
		return body, err == nil
	}
	opts.ExpectResolve = func(name string) (string, bool) {
		text, err := ag.ResolveText(ctx, name)
		return text, err == nil
	}
}
