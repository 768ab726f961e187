package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/agent3md/agent3md/internal/httpd"
	"github.com/agent3md/agent3md/mcpclient"
	"github.com/agent3md/agent3md/skillsync"
)

// syncFix leads a failed sync's error with what to do about it, for the
// failures a person can fix with a flag or a check: a refused or missing
// token, an unknown endpoint (the server's message lists the served ones),
// an address nothing answers at, a name that does not resolve, a
// certificate not trusted. The error as the client words it follows, so
// nothing is lost. Other errors are returned as they are.
func syncFix(err error, src *skillsync.Source, tokenFile string) error {
	if err == nil || src == nil || src.URL == "" {
		return err
	}
	fix := syncFixText(err, src, tokenFile)
	if fix == "" {
		return err
	}
	var se *mcpclient.StatusError
	if errors.As(err, &se) && se.Status == 404 && se.Message != "" {
		// The server's message is the whole story; the chain under it
		// would only say it again.
		return &fixedError{msg: fmt.Sprintf("cannot sync from %s: %s", src.URL, fix), err: err}
	}
	return fmt.Errorf("cannot sync from %s: %s\n(%w)", src.URL, fix, err)
}

// fixedError is an error reworded whole, still unwrapping to the original.
type fixedError struct {
	msg string
	err error
}

func (e *fixedError) Error() string { return e.msg }
func (e *fixedError) Unwrap() error { return e.err }

func syncFixText(err error, src *skillsync.Source, tokenFile string) string {
	host := src.URL
	if u, perr := url.Parse(src.URL); perr == nil {
		host = u.Host
	}
	var (
		se   *mcpclient.StatusError
		dns  *net.DNSError
		ua   x509.UnknownAuthorityError
		cert *tls.CertificateVerificationError
		rh   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &se) && se.Status == 401 && src.Token == "":
		return fmt.Sprintf("the server wants a bearer token and none was sent: pass --token-file FILE (the token on its first line) or set %s", httpd.TokenEnv)
	case errors.As(err, &se) && se.Status == 401:
		from := "$" + httpd.TokenEnv
		if tokenFile != "" {
			from = "--token-file " + tokenFile
		}
		return fmt.Sprintf("the server refused the token from %s: check it is one of the lines of the server's --token-file (or its %s)", from, httpd.TokenEnv)
	case errors.As(err, &se) && se.Status == 403:
		return "the server refused the request: its token scope, or the Origin or Host it accepts (serve --allow-host for a name behind a proxy)"
	case errors.As(err, &se) && se.Status == 404 && se.Message != "":
		return fmt.Sprintf("the server answered 404, %q; use one of the endpoints it names (serve prints each one's url at start)", se.Message)
	case errors.As(err, &se) && se.Status == 404:
		return "no MCP endpoint at this path; use one of the URLs serve printed at start (\"agent ready … url=\")"
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing answers at %s: check that agent3md serve runs there and that the URL's host and port match its --addr", host)
	case errors.As(err, &dns):
		return fmt.Sprintf("the host name in %s does not resolve: check its spelling, or your network and DNS", host)
	case errors.As(err, &ua), errors.As(err, &cert):
		return "the server's certificate is not trusted here: pass --ca-file with the CA that signed it"
	case errors.As(err, &rh):
		return "the server does not speak TLS at this address: use http:// (or serve with --tls-cert and --tls-key)"
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"): // net/http's error has no type
		return "the server does not speak TLS at this address: use http:// (or serve with --tls-cert and --tls-key)"
	case errors.Is(err, syscall.ETIMEDOUT), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return fmt.Sprintf("%s cannot be reached: check the host, and any firewall or proxy between", host)
	}
	return ""
}
