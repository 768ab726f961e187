package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The helpers of the tests that drive `agent3md serve` as a process, the
// way HTTP clients meet it (docs/http.md).

var (
	serveBinOnce sync.Once
	serveBin     string
	serveBinErr  error
)

// agent3mdBinary builds the command once per test process. The binary goes
// into the cache folder TestMain made and removes at the end, so several
// tests share one build and nothing is left behind.
func agent3mdBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the agent3md binary; skipped with -short")
	}
	serveBinOnce.Do(func() {
		dir, err := os.MkdirTemp(os.Getenv("XDG_CACHE_HOME"), "serve-bin-")
		if err != nil {
			serveBinErr = err
			return
		}
		serveBin = filepath.Join(dir, "agent3md")
		out, err := exec.Command("go", "build", "-o", serveBin, "github.com/agent3md/agent3md/cmd/agent3md").CombinedOutput()
		if err != nil {
			serveBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if serveBinErr != nil {
		t.Fatal(serveBinErr)
	}
	return serveBin
}

// served is one running `agent3md serve` process.
type served struct {
	addr   string // host:port bound, from the "listening" log line
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{} // closed when the process has exited
	err    error         // its exit status, once done
}

// listeningRE finds the bound address in serve's last startup line
// (`msg="agent3md serving over HTTP" addr=127.0.0.1:41234 …`), which
// follows every "agent ready" line.
var listeningRE = regexp.MustCompile(`msg="agent3md serving over HTTP" addr=(\S+)`)

// startServe runs `agent3md serve --addr 127.0.0.1:0 ARGS...` with its own
// cache folder, waits for its "listening" line and stops it (SIGTERM, then
// a check that it exits 0) when the test ends.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	bin := agent3mdBinary(t)
	full := append([]string{"serve", "--addr", "127.0.0.1:0", "--cache-dir", t.TempDir()}, args...)
	s := &served{cmd: exec.Command(bin, full...), done: make(chan struct{})}
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			if m := listeningRE.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, pipe)
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
			if s.err != nil {
				t.Errorf("agent3md serve exited with %v after SIGTERM; stderr:\n%s", s.err, s.log())
			}
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
			t.Errorf("agent3md serve did not stop within 30s of SIGTERM; stderr:\n%s", s.log())
		}
	})
	select {
	case s.addr = <-addr:
	case <-s.done:
		t.Fatalf("agent3md %s exited before listening (%v):\n%s", strings.Join(full, " "), s.err, s.log())
	case <-time.After(60 * time.Second):
		t.Fatalf("agent3md serve logged no listening line within 60s:\n%s", s.log())
	}
	return s
}

// log is what the server wrote on stderr so far.
func (s *served) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// port is the bound port.
func (s *served) port() string {
	_, p, _ := net.SplitHostPort(s.addr)
	return p
}

// testPKI is a certificate authority made for one test and a server
// certificate it signed for the given names (IP addresses or DNS names).
type testPKI struct {
	roots             *x509.CertPool // holds the CA: what a client trusts
	caPEM             []byte         // the CA certificate, for clients that read a file
	certFile, keyFile string         // the server's PEM pair
}

func newTestPKI(t *testing.T, names ...string) *testPKI {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "agent3md test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: names[0]},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := &testPKI{roots: x509.NewCertPool(), certFile: filepath.Join(dir, "tls.crt"), keyFile: filepath.Join(dir, "tls.key")}
	p.roots.AddCert(ca)
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	if err := os.WriteFile(p.certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// tlsConfig is what a client that trusts the test CA uses.
func (p *testPKI) tlsConfig() *tls.Config {
	return &tls.Config{RootCAs: p.roots, MinVersion: tls.VersionTLS12}
}

// writeTokenFile writes a --token-file with the given tokens.
func writeTokenFile(t *testing.T, tokens ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(path, []byte("# test tokens\n"+strings.Join(tokens, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// rpcAnswer is one JSON-RPC answer, whichever way it arrived.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// decodeAnswer reads a 200 answer: a JSON body, or an event stream whose
// last data event is the answer.
func decodeAnswer(resp *http.Response, body []byte) (*rpcAnswer, error) {
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var last []byte
		for _, line := range strings.Split(string(body), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				last = []byte(strings.TrimSpace(d))
			}
		}
		body = last
	}
	var a rpcAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("answer is not one JSON-RPC message: %v: %.300q", err, body)
	}
	return &a, nil
}
