package httpd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/agent3md/agent3md/internal/filekind"
)

// Credential files — the token file, the TLS certificate and its key — are
// read at start and again on every SIGHUP, from paths an operator (or a
// mounted Secret) controls. A read must never hang the server: a named
// pipe opened for reading waits for a writer forever, a device may never
// reach its end, and a stalled network file system may never answer. So
// each is read by readCredential (docs/http.md §2, §4):
//
//  1. the path is stat'ed, and anything but a regular file (after
//     symlinks, which mounted Secrets use) is refused, saying what it is,
//     before it is opened: opening some devices has effects of its own;
//  2. it is opened with O_NONBLOCK, so the open cannot wait even when the
//     path was swapped for a pipe after the stat, and the open file is
//     checked again (fstat) before anything is read;
//  3. at most Options.MaxCredentialBytes are read;
//  4. all of it within Options.CredentialTimeout. A read still blocked then is
//     abandoned and reported; until it returns, the same path is refused
//     at once rather than read again, so a stalled mount cannot pile up
//     blocked threads one SIGHUP at a time.

const (
	// DefaultMaxCredentialBytes bounds each credential file. A token file
	// of a few hundred tokens, or a certificate chain, is a few KiB;
	// 1 MiB leaves room for comments and long chains, and stops a file
	// that is not a credential at all from being read whole.
	DefaultMaxCredentialBytes = 1 << 20
	// MaxCredentialBytesCeiling is the most Options.MaxCredentialBytes
	// may be: the file is held whole while it is parsed.
	MaxCredentialBytesCeiling = 64 << 20
	// DefaultCredentialTimeout bounds opening and reading one credential
	// file. A local file takes microseconds; a network file system that
	// takes longer is stalled, and the server goes on without it.
	DefaultCredentialTimeout = 10 * time.Second
)

// credLimits are the bounds a credential file is read within.
type credLimits struct {
	maxBytes int64
	timeout  time.Duration
	// client: the file is read for a client (a token it sends, a CA it
	// trusts), whose bounds are the defaults and no serve flag raises.
	client bool
}

// clientCredLimits are the bounds of the files a client reads: the token
// it sends (ReadTokenFile) and the CA certificates it trusts
// (ReadCAFile), for sync and selftest --url.
var clientCredLimits = credLimits{DefaultMaxCredentialBytes, DefaultCredentialTimeout, true}

// credLimits are o's bounds for credential files.
func (o *Options) credLimits() credLimits {
	return credLimits{maxBytes: o.MaxCredentialBytes, timeout: o.CredentialTimeout}
}

// Errors a CredentialError wraps (besides the open's own, such as
// fs.ErrNotExist).
var (
	// ErrNotRegular: the path names a pipe, a device, a socket or a
	// directory (filekind's, so one errors.Is test holds everywhere).
	ErrNotRegular = filekind.ErrNotRegular
	// ErrCredentialTooLarge: the file is over Options.MaxCredentialBytes.
	ErrCredentialTooLarge = errors.New("credential file too large")
	// ErrCredentialTimeout: opening or reading the file did not finish
	// within Options.CredentialTimeout, or an earlier read of it still has
	// not.
	ErrCredentialTimeout = errors.New("credential file read timed out")
)

// Kinds of credential file, as a CredentialError names them.
const (
	KindTokenFile = "token file"
	KindTLSCert   = "TLS certificate"
	KindTLSKey    = "TLS key"
	KindCAFile    = "CA file"
)

// CredentialError says which credential file could not be read and why.
// Kind is one of the Kind constants; cmd maps it to its flag.
type CredentialError struct {
	Kind string
	Path string
	Err  error
	// fileKind is what the path is, for ErrNotRegular ("a named pipe").
	fileKind string
	// limit is the size bound, for ErrCredentialTooLarge.
	limit int64
	// client: read for a client, whose bounds no flag raises.
	client bool
}

func (e *CredentialError) Error() string {
	return e.Kind + " " + e.Path + e.Reason()
}

// Reason is the message without its subject, starting with a space or a
// colon, so a caller can name the file its own way ("--token-file PATH" +
// Reason()).
func (e *CredentialError) Reason() string {
	switch {
	case errors.Is(e.Err, ErrNotRegular):
		return fmt.Sprintf(" is %s, not a regular file: give the path of a regular file (a pipe or a device could block the server or never end)", e.fileKind)
	case errors.Is(e.Err, ErrCredentialTooLarge) && e.client:
		return fmt.Sprintf(" is larger than %d bytes, the limit for a credential file: is it the right file?", e.limit)
	case errors.Is(e.Err, ErrCredentialTooLarge):
		return fmt.Sprintf(" is larger than %d bytes, the limit for a credential file: is it the right file? (serve --max-credential-bytes raises the limit)", e.limit)
	case errors.Is(e.Err, ErrCredentialTimeout) && e.client:
		detail := strings.TrimPrefix(e.Err.Error(), ErrCredentialTimeout.Error()+": ")
		return ": " + detail + " (is its file system stalled?); it was not waited for"
	case errors.Is(e.Err, ErrCredentialTimeout):
		detail := strings.TrimPrefix(e.Err.Error(), ErrCredentialTimeout.Error()+": ")
		return ": " + detail + " (serve --credential-timeout; is its file system stalled?); the server did not wait for it"
	}
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		return ": " + pe.Err.Error() // the path is already named
	}
	return ": " + e.Err.Error()
}

func (e *CredentialError) Unwrap() error { return e.Err }

// readCredential reads a credential file as the package comment above
// says.
func readCredential(kind, path string, lim credLimits) ([]byte, error) {
	data, err := readCredentialWithin(kind, path, lim.timeout, func(p string) ([]byte, string, error) { return readRegular(p, lim.maxBytes) })
	if ce, ok := err.(*CredentialError); ok {
		ce.limit, ce.client = lim.maxBytes, lim.client
	}
	return data, err
}

// ReadCAFile reads the PEM CA certificates a client trusts (sync's and
// selftest's --ca-file) as every credential file is read: a regular file
// only, opened without blocking, at most DefaultMaxCredentialBytes, within
// DefaultCredentialTimeout; what cannot be read is a *CredentialError. A
// plain open of a named pipe would wait for a writer for ever.
func ReadCAFile(path string) ([]byte, error) {
	return readCredential(KindCAFile, path, clientCredLimits)
}

// credentialReads are the paths whose read was abandoned and is still
// blocked.
var credentialReads = struct {
	sync.Mutex
	blocked map[string]bool
}{blocked: map[string]bool{}}

// readCredentialWithin runs read(path) for at most timeout. read is
// readRegular but for tests, which stand in a read that blocks.
func readCredentialWithin(kind, path string, timeout time.Duration, read func(string) ([]byte, string, error)) ([]byte, error) {
	credentialReads.Lock()
	if credentialReads.blocked[path] {
		credentialReads.Unlock()
		return nil, &CredentialError{Kind: kind, Path: path, Err: fmt.Errorf("%w: an earlier read of it has still not returned", ErrCredentialTimeout)}
	}
	credentialReads.blocked[path] = true // until read returns
	credentialReads.Unlock()
	type result struct {
		data     []byte
		fileKind string
		err      error
	}
	done := make(chan result, 1)
	go func() {
		data, fk, err := read(path)
		credentialReads.Lock()
		delete(credentialReads.blocked, path)
		credentialReads.Unlock()
		done <- result{data, fk, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, &CredentialError{Kind: kind, Path: path, Err: r.err, fileKind: r.fileKind}
		}
		return r.data, nil
	case <-timer.C:
		return nil, &CredentialError{Kind: kind, Path: path, Err: fmt.Errorf("%w: reading it took longer than %s", ErrCredentialTimeout, timeout)}
	}
}

// readRegular opens path without blocking, checks it is a regular file
// before and after the open, and reads at most max bytes. On
// ErrNotRegular it also returns what the path is.
func readRegular(path string, max int64) ([]byte, string, error) {
	f, err := filekind.Open(path)
	var nr *filekind.NotRegularError
	if errors.As(err, &nr) {
		return nil, filekind.Of(nr.Mode), ErrNotRegular
	}
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	if st.Size() > max {
		return nil, "", ErrCredentialTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, "", err
	}
	if int64(len(data)) > max { // grew while read
		return nil, "", ErrCredentialTooLarge
	}
	return data, "", nil
}
