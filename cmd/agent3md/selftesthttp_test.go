package main

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/httpd"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/mcp"
	"github.com/agent3md/agent3md/router"
)

// selftestToken is the bearer token the test server wants.
const selftestToken = "selftest-cli-token-0123456789"

// selftestHTTPS serves devtools over HTTPS through internal/httpd, as
// agent3md serve does, refusing requests without the token; it returns
// the endpoint and a CA file that trusts its certificate.
func selftestHTTPS(t *testing.T) (url, caFile string) {
	t.Helper()
	ag, err := loader.Open(devtools, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ag.Close() })
	S, err := mcp.NewServer(context.Background(), &mcp.Options{Source: mcp.Loaded(ag), Version: "test", Projection: projectionJSON,
		Router: &router.Options{CacheDir: t.TempDir(), NoCache: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(S.Close)
	srv, err := httpd.New(&httpd.Options{Tokens: []string{selftestToken}, Logger: slog.New(slog.DiscardHandler)},
		httpd.Endpoints{Agents: map[string]http.Handler{"devtools": S.HTTPHandler(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted run fails handshakes on purpose
	ts.StartTLS()
	t.Cleanup(ts.Close)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(caFile, cert, 0o600); err != nil {
		t.Fatal(err)
	}
	return ts.URL + "/mcp", caFile
}

func TestSelftestOverHTTPS(t *testing.T) {
	url, ca := selftestHTTPS(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokenFile, []byte("# team token\n"+selftestToken+"\nanother-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("token file, CA file and the agent FILE", func(t *testing.T) {
		code, out, errOut := cli(t, "selftest", "--json", "--url", url, "--token-file", tokenFile, "--ca-file", ca, devtools)
		var rep struct {
			Transport string `json:"transport"`
			Server    string `json:"server"`
			OK        bool   `json:"ok"`
			Checks    []struct{ Name, Status, Detail string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("exit %d, not a JSON report: %v\n%s%s", code, err, out, errOut)
		}
		if code != 0 || !rep.OK || rep.Transport != "http" || rep.Server != url {
			t.Fatalf("exit %d, ok %v, transport %q, server %q:\n%s%s", code, rep.OK, rep.Transport, rep.Server, out, errOut)
		}
		status := map[string]string{}
		for _, c := range rep.Checks {
			status[c.Name] = c.Status
		}
		for name, want := range map[string]string{"http/auth": "pass", "http/origin": "pass", "exit/eof": "skip", "tool/get_skill": "pass", "modern/discover": "pass"} {
			if status[name] != want {
				t.Errorf("%s: %s, want %s", name, status[name], want)
			}
		}
		if strings.Contains(out, selftestToken) {
			t.Error("the report shows the token")
		}
	})
	t.Run("token from the environment", func(t *testing.T) {
		t.Setenv("AGENT3MD_TOKEN", selftestToken)
		if code, out, errOut := cli(t, "selftest", "--url", url, "--ca-file", ca); code != 0 {
			t.Fatalf("exit %d:\n%s%s", code, out, errOut)
		}
	})
	t.Run("no token", func(t *testing.T) {
		t.Setenv("AGENT3MD_TOKEN", "")
		code, out, _ := cli(t, "selftest", "--url", url, "--ca-file", ca)
		if code != 1 || !strings.Contains(out, "401 Unauthorized; the server wants a bearer token") {
			t.Fatalf("exit %d, want 1 with the 401 explained:\n%s", code, out)
		}
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		code, out, _ := cli(t, "selftest", "--url", url, "--token-file", tokenFile)
		if code != 1 || !strings.Contains(out, "certificate") {
			t.Fatalf("exit %d, want 1 with a certificate error:\n%s", code, out)
		}
	})
}

func TestSelftestHTTPFlagErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	short, notPEM := write("short", "abc\n"), write("notpem", "hello\n")
	big := write("big.pem", strings.Repeat("x", httpd.DefaultMaxCredentialBytes+1))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--token-file", short, devtools}, "go with --url URL"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--server", "x y"}, "test one server at a time"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--token-file", short}, short + ":1: token too short"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--token-file", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--ca-file", notPEM}, "no PEM certificate found"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--ca-file", filepath.Join(dir, "missing.pem")}, "--ca-file " + filepath.Join(dir, "missing.pem") + ": no such file"},
		{[]string{"--url", "http://127.0.0.1:1/mcp", "--ca-file", big}, "--ca-file " + big + " is larger than 1048576 bytes, the limit for a credential file: is it the right file?\n"},
		{[]string{"--url", "ftp://host/mcp"}, "absolute http:// or https:// URL"},
	} {
		code, _, errOut := cli(t, append([]string{"selftest"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("selftest %q: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestSelftestAgainstHTTPD: the whole serving stack agent3md serve uses
// (internal/httpd's Host and Origin checks, tokens, body limits, around
// mcp's handler) passes every check.
func TestSelftestAgainstHTTPD(t *testing.T) {
	ag, err := loader.Open(devtools, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	S, err := mcp.NewServer(context.Background(), &mcp.Options{Source: mcp.Loaded(ag), Version: "test", Projection: projectionJSON,
		Router: &router.Options{CacheDir: t.TempDir(), NoCache: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer S.Close()
	srv, err := httpd.New(&httpd.Options{Tokens: []string{selftestToken}, Logger: slog.New(slog.DiscardHandler)},
		httpd.Endpoints{Agents: map[string]http.Handler{"devtools": S.HTTPHandler(nil)}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	t.Setenv("AGENT3MD_TOKEN", selftestToken)
	for _, path := range []string{"/mcp", "/mcp/devtools"} {
		if code, out, errOut := cli(t, "selftest", "--url", ts.URL+path, devtools); code != 0 {
			t.Errorf("%s: exit %d:\n%s%s", path, code, out, errOut)
		}
	}
}

// TestSelftestServeEndToEnd: agent3md selftest --url passes every check
// against a real agent3md serve process, token and all.
func TestSelftestServeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "agent3md")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/agent3md/agent3md/cmd/agent3md").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte(selftestToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	serve := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--cache-dir", filepath.Join(dir, "cache"),
		"--token-file", tokens, "--no-watch", devtools)
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
	}()
	// The log names the address once it listens; the rest of the log is
	// drained so the server never blocks writing it.
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`msg="agent3md serving over HTTP" addr=(\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	var a string
	select {
	case got, ok := <-addr:
		if !ok {
			t.Fatal("serve ended without listening")
		}
		a = got
	case <-time.After(2 * time.Minute): // a hang guard, not a timing check
		t.Fatal("serve did not listen")
	}
	code, out, errOut := cli(t, "selftest", "--url", "http://"+a+"/mcp", "--token-file", tokens, devtools)
	if code != 0 {
		t.Fatalf("selftest against agent3md serve: exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"✓ http/origin", "✓ http/auth", "✓ modern/discover", "✓ tool/get_skill"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
