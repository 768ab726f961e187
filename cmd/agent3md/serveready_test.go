package main

import (
	"encoding/json"
	"net"
	"regexp"
	"strings"
	"testing"
)

// TestServePrintsEndpointURLs: each agent's startup line holds the whole
// URL a member pastes into sync, and it works there.
func TestServePrintsEndpointURLs(t *testing.T) {
	s := startServe(t, "--no-watch", "../../examples/devtools.3md")
	m := regexp.MustCompile(`msg="agent ready" agent=Forge endpoint=/mcp/forge url=(\S+) `).FindStringSubmatch(s.log())
	if m == nil {
		t.Fatalf("no agent ready line with a url:\n%s", s.log())
	}
	if want := "http://127.0.0.1:" + s.port() + "/mcp/forge"; m[1] != want {
		t.Fatalf("url %s, want %s", m[1], want)
	}
	if code, out, errOut := cli(t, "sync", "--dry-run", m[1], t.TempDir()); code != 0 {
		t.Fatalf("sync of the printed url: exit %d\n%s%s", code, out, errOut)
	}
}

func TestEndpointURL(t *testing.T) {
	tcp := func(ip string, port int) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: port} }
	for _, tc := range []struct {
		flag  string
		bound net.Addr
		tls   bool
		want  string
	}{
		{"127.0.0.1:0", tcp("127.0.0.1", 41234), false, "http://127.0.0.1:41234/mcp/x"},
		{"[::1]:8765", tcp("::1", 8765), true, "https://[::1]:8765/mcp/x"},
		{"mcp.example.com:8443", tcp("10.0.0.5", 8443), true, "https://mcp.example.com:8443/mcp/x"},
		{"10.0.0.5:8443", tcp("10.0.0.5", 8443), false, "http://10.0.0.5:8443/mcp/x"},
	} {
		if got := endpointURL(tc.flag, tc.bound, tc.tls, "/mcp/x"); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.flag, got, tc.want)
		}
	}
	// Every interface: this machine's name, never 0.0.0.0, which no
	// member can dial.
	if got := endpointURL("0.0.0.0:8443", tcp("0.0.0.0", 8443), true, "/mcp/x"); strings.Contains(got, "0.0.0.0") || !strings.HasSuffix(got, ":8443/mcp/x") {
		t.Errorf("0.0.0.0: %s", got)
	}
}

// TestServePortInUse: the refusal names --addr, and no agent is said to
// be ready first.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errOut := cli(t, "serve", "--no-watch", "--cache-dir", t.TempDir(), "--addr", ln.Addr().String(), "../../examples/devtools.3md")
	if code != exitUsage || !strings.Contains(errOut, "is in use") || !strings.Contains(errOut, "--addr 127.0.0.1:8766") {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if strings.Contains(errOut, "agent ready") {
		t.Fatalf("agent ready logged before the bind failed:\n%s", errOut)
	}
}

// TestLogFormatJSON: --log-format json writes one JSON object a line
// (mcp here, serve and sync --watch share the logger); a wrong value
// names both choices; and no text line at info carries an empty field or
// the memory limit's default.
func TestLogFormatJSON(t *testing.T) {
	code, _, errOut := cli(t, "serve", "--log-format", "yaml", "../../examples/devtools.3md")
	if code != exitUsage || !strings.Contains(errOut, "use text or json") {
		t.Fatalf("--log-format yaml: exit %d\n%s", code, errOut)
	}
	code, _, errOut = cli(t, "mcp", "--log-format", "json", "--no-watch", "--cache-dir", t.TempDir(), "../../examples/devtools.3md")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != 0 || len(lines) == 0 {
		t.Fatalf("mcp --log-format json: exit %d\n%s", code, errOut)
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["msg"] == nil || m["time"] == nil {
			t.Errorf("not a JSON log line: %q (%v)", l, err)
		}
	}
	s := startServe(t, "--no-watch", "../../examples/devtools.3md")
	if strings.Contains(s.log(), `=""`) || strings.Contains(s.log(), "memory limit follows") {
		t.Errorf("info log with an empty field or the memory line:\n%s", s.log())
	}
}
