package httpd

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCert makes a self-signed certificate for localhost and 127.0.0.1
// with the given serial, and returns its PEM files' contents and the
// parsed certificate.
func testCert(t *testing.T, serial int64) (certPEM, keyPEM []byte, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: "agent3md test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ = x509.ParseCertificate(der)
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), cert
}

// tlsFiles writes a certificate pair to files it returns.
func tlsFiles(t *testing.T, certPEM, keyPEM []byte) (certFile, keyFile string) {
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, certPEM, 0o600)
	os.WriteFile(keyFile, keyPEM, 0o600)
	return certFile, keyFile
}

// tlsClient trusts roots and opens a new connection per request, so each
// request sees the certificate served at that moment.
func tlsClient(roots *x509.CertPool, minV, maxV uint16) *http.Client {
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: roots, MinVersion: minV, MaxVersion: maxV},
		DisableKeepAlives: true,
	}}
}

// servedSerial is the serial of the certificate a new handshake gets.
func servedSerial(t *testing.T, r *running, c *http.Client) int64 {
	t.Helper()
	resp, err := c.Get(r.url + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz: %v", err)
	}
	resp.Body.Close()
	return resp.TLS.PeerCertificates[0].SerialNumber.Int64()
}

func TestTLS(t *testing.T) {
	c1, k1, x1 := testCert(t, 1)
	c2, k2, x2 := testCert(t, 2)
	certFile, keyFile := tlsFiles(t, c1, k1)
	r := start(t, Options{TLSCert: certFile, TLSKey: keyFile, Tokens: []string{tokA}}, oneAgent())
	roots := x509.NewCertPool()
	roots.AddCert(x1)
	roots.AddCert(x2)
	client := tlsClient(roots, tls.VersionTLS12, 0)

	t.Run("handshake and auth", func(t *testing.T) {
		if got := servedSerial(t, r, client); got != 1 {
			t.Fatalf("serial %d, want 1", got)
		}
		if v := r.srv.certs.config().MinVersion; v != tls.VersionTLS12 {
			t.Fatalf("MinVersion %x, want TLS 1.2", v)
		}
		resp, _ := r.do(t, client, req{path: "/mcp", body: postBody, headers: map[string]string{"Authorization": "Bearer " + tokA}})
		if resp.StatusCode != 200 || resp.TLS.Version < tls.VersionTLS12 {
			t.Fatalf("status %d, TLS version %x", resp.StatusCode, resp.TLS.Version)
		}
	})
	t.Run("HTTP/2", func(t *testing.T) {
		h2 := &http.Client{Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: roots},
			ForceAttemptHTTP2: true,
		}}
		resp, body := r.do(t, h2, req{path: "/mcp", body: postBody, headers: map[string]string{"Authorization": "Bearer " + tokA}})
		if resp.ProtoMajor != 2 || resp.StatusCode != 200 || !strings.Contains(body, `"bytes":46`) {
			t.Fatalf("%s %d %s", resp.Proto, resp.StatusCode, body)
		}
		resp, _ = r.do(t, h2, req{path: "/mcp", body: strings.Repeat("x", DefaultMaxBodyBytes+1), headers: map[string]string{"Authorization": "Bearer " + tokA}})
		if resp.StatusCode != 413 {
			t.Fatalf("over the limit on HTTP/2: %d", resp.StatusCode)
		}
	})
	t.Run("TLS 1.1 refused", func(t *testing.T) {
		old := tlsClient(roots, tls.VersionTLS10, tls.VersionTLS11)
		if _, err := old.Get(r.url + "/healthz"); err == nil {
			t.Fatal("a TLS 1.1 handshake succeeded")
		}
	})
	t.Run("plain HTTP on the TLS port fails", func(t *testing.T) {
		resp, err := http.Get(strings.Replace(r.url, "https", "http", 1) + "/healthz")
		if err == nil {
			defer resp.Body.Close()
			if resp.StatusCode < 400 {
				t.Fatalf("plain HTTP got %d", resp.StatusCode)
			}
		}
	})
	t.Run("reload swaps the certificate", func(t *testing.T) {
		os.WriteFile(certFile, c2, 0o600)
		os.WriteFile(keyFile, k2, 0o600)
		if err := r.srv.Reload(); err != nil {
			t.Fatal(err)
		}
		if got := servedSerial(t, r, client); got != 2 {
			t.Fatalf("serial %d after reload, want 2", got)
		}
	})
	t.Run("a bad certificate keeps the old one", func(t *testing.T) {
		os.WriteFile(certFile, []byte("not a certificate"), 0o600)
		err := r.srv.Reload()
		if err == nil || !strings.Contains(err.Error(), certFile) {
			t.Fatalf("Reload: %v, want an error naming %s", err, certFile)
		}
		if got := servedSerial(t, r, client); got != 2 {
			t.Fatalf("serial %d after a bad reload, want 2", got)
		}
		if !strings.Contains(r.log.String(), "certificate reload failed") {
			t.Error("the failed reload is not logged")
		}
	})
	t.Run("a mismatched key keeps the old one", func(t *testing.T) {
		os.WriteFile(certFile, c1, 0o600) // key file still holds k2
		if err := r.srv.Reload(); err == nil {
			t.Fatal("Reload accepted a certificate with another's key")
		}
		if got := servedSerial(t, r, client); got != 2 {
			t.Fatalf("serial %d, want 2", got)
		}
	})
}

func TestTLSOptionsChecked(t *testing.T) {
	c1, k1, _ := testCert(t, 1)
	certFile, keyFile := tlsFiles(t, c1, k1)
	cases := []struct {
		name       string
		cert, key  string
		wantErrHas string
	}{
		{"cert without key", certFile, "", "both a certificate and a key"},
		{"key without cert", "", keyFile, "both a certificate and a key"},
		{"missing file", filepath.Join(t.TempDir(), "none.pem"), keyFile, "none.pem"},
		{"swapped", keyFile, certFile, "cert.pem"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(&Options{TLSCert: tt.cert, TLSKey: tt.key}, oneAgent())
			if err == nil || !strings.Contains(err.Error(), tt.wantErrHas) {
				t.Fatalf("err %v, want one containing %q", err, tt.wantErrHas)
			}
		})
	}
}
