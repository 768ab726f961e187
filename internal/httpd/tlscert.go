package httpd

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"sync/atomic"
	"time"
)

// certStore serves the certificate of TLSCert/TLSKey and swaps it on
// reload. Handshakes read it through an atomic pointer, so a reload never
// blocks or breaks a handshake in progress.
type certStore struct {
	certFile, keyFile string
	lim               credLimits
	cur               atomic.Pointer[tls.Certificate]
}

func newCertStore(certFile, keyFile string, lim credLimits) (*certStore, error) {
	c := &certStore{certFile: certFile, keyFile: keyFile, lim: lim}
	if err := c.reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// reload reads the pair again; a bad pair leaves the one in use. Both
// files are read as credential files (credfile.go): a pipe or a stalled
// mount in their place is an error, never a wait.
func (c *certStore) reload() error {
	certPEM, err := readCredential(KindTLSCert, c.certFile, c.lim)
	if err != nil {
		return err
	}
	keyPEM, err := readCredential(KindTLSKey, c.keyFile, c.lim)
	if err != nil {
		return err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return fmt.Errorf("TLS certificate %s with key %s: %w", c.certFile, c.keyFile, err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return fmt.Errorf("TLS certificate %s: %w", c.certFile, err)
	}
	cert.Leaf = leaf
	c.cur.Store(&cert)
	return nil
}

// expiry is the NotAfter of the certificate in use, for the log.
func (c *certStore) expiry() time.Time {
	return c.cur.Load().Leaf.NotAfter
}

func (c *certStore) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return c.cur.Load(), nil
}

// config is the server's TLS configuration: TLS 1.2 at least (docs/http.md
// §4), Go's default cipher suites, and the certificate from the store.
func (c *certStore) config() *tls.Config {
	return &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: c.get,
	}
}
