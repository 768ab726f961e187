//go:build unix

package httpd

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// within runs f and fails the test if it has not returned after d: a
// credential read that blocks must be a failure, not a hung test binary.
func within[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s blocked for %s", what, d)
		panic("unreachable")
	}
}

// specialFiles makes a named pipe, a unix socket and a directory in dir,
// keyed by what a CredentialError calls them.
func specialFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	sub := filepath.Join(dir, "dir")
	os.Mkdir(sub, 0o700)
	files := map[string]string{"a named pipe": fifo, "a socket": sock, "a directory": sub}
	if st, err := os.Stat("/dev/zero"); err == nil && st.Mode()&fs.ModeDevice != 0 {
		files["a device"] = "/dev/zero" // never ends: only the refusal bounds it
	}
	return files
}

// TestCredentialFilesRefused: a token file, certificate or key that is not
// a regular file is refused at start, at once, with an error saying which
// file and what it is. Before, a named pipe blocked New forever (and
// /dev/zero as a certificate was read until memory ran out).
func TestCredentialFilesRefused(t *testing.T) {
	certPEM, keyPEM, _ := testCert(t, 1)
	certFile, keyFile := tlsFiles(t, certPEM, keyPEM)
	for what, path := range specialFiles(t, t.TempDir()) {
		for _, tt := range []struct {
			kind string
			opts Options
		}{
			{KindTokenFile, Options{TokenFile: path}},
			{KindTLSCert, Options{TLSCert: path, TLSKey: keyFile}},
			{KindTLSKey, Options{TLSCert: certFile, TLSKey: path}},
		} {
			t.Run(tt.kind+" "+what, func(t *testing.T) {
				err := within(t, 20*time.Second, "New", func() error {
					_, err := New(&tt.opts, oneAgent())
					return err
				})
				var ce *CredentialError
				if !errors.As(err, &ce) || !errors.Is(err, ErrNotRegular) {
					t.Fatalf("err %v, want a *CredentialError wrapping ErrNotRegular", err)
				}
				want := tt.kind + " " + path + " is " + what + ", not a regular file"
				if ce.Kind != tt.kind || !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("err %q\nwant it to start %q", err, want)
				}
			})
		}
	}
}

func TestReadCredential(t *testing.T) {
	dir := t.TempDir()
	ok := writeFile(t, "ok", tokA+"\n")
	exact := filepath.Join(dir, "exact")
	os.WriteFile(exact, make([]byte, DefaultMaxCredentialBytes), 0o600)
	over := filepath.Join(dir, "over")
	os.WriteFile(over, make([]byte, DefaultMaxCredentialBytes+1), 0o600)
	link := filepath.Join(dir, "link") // a mounted Secret's shape
	os.Symlink(ok, link)
	for _, tt := range []struct {
		name, path string
		want       error // nil: read
		has        string
	}{
		{"regular", ok, nil, ""},
		{"symlink to regular", link, nil, ""},
		{"exactly the limit", exact, nil, ""},
		{"one byte over", over, ErrCredentialTooLarge, "is larger than 1048576 bytes"},
		{"missing", filepath.Join(dir, "nope"), fs.ErrNotExist, ": no such file or directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data, err := readCredential(KindTokenFile, tt.path, clientCredLimits)
			if tt.want == nil {
				if err != nil || len(data) == 0 {
					t.Fatalf("got %d bytes, %v", len(data), err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.HasPrefix(err.Error(), KindTokenFile+" "+tt.path) || !strings.Contains(err.Error(), tt.has) {
				t.Fatalf("err %v; want %v naming the file and saying %q", err, tt.want, tt.has)
			}
		})
	}
}

// TestCredentialReadTimeout: a read that blocks (a stalled network mount)
// is given up after the timeout; while it stays blocked, the same path is
// refused at once instead of piling up another blocked read; once it
// returns, the path is read again.
func TestCredentialReadTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var once sync.Once
		unblock := func() { once.Do(func() { close(release) }) }
		defer unblock() // a failure must not leave the read blocked in the bubble
		var calls sync.WaitGroup
		stalled := func(string) ([]byte, string, error) {
			defer calls.Done()
			<-release
			return []byte("late"), "", nil
		}
		calls.Add(1)
		start := time.Now()
		_, err := readCredentialWithin(KindTLSKey, "/mnt/nfs/key", time.Second, stalled)
		if !errors.Is(err, ErrCredentialTimeout) || !strings.Contains(err.Error(), "TLS key /mnt/nfs/key: reading it took longer than 1s") {
			t.Fatalf("err %v", err)
		}
		if d := time.Since(start); d != time.Second {
			t.Fatalf("gave up after %s, want the 1s timeout", d)
		}
		_, err = readCredentialWithin(KindTLSKey, "/mnt/nfs/key", time.Second, stalled)
		if !errors.Is(err, ErrCredentialTimeout) || !strings.Contains(err.Error(), "an earlier read of it has still not returned") {
			t.Fatalf("second read while the first is blocked: %v", err)
		}
		if time.Since(start) != time.Second {
			t.Fatal("the second read waited instead of being refused at once")
		}
		unblock()
		calls.Wait()
		synctest.Wait()
		data, err := readCredentialWithin(KindTLSKey, "/mnt/nfs/key", time.Second, func(string) ([]byte, string, error) {
			return []byte("fresh"), "", nil
		})
		if err != nil || string(data) != "fresh" {
			t.Fatalf("read after the stall ended: %q, %v", data, err)
		}
	})
}

// TestReloadSurvivesFIFO: a named pipe put in place of the token file or
// the certificate before a reload fails that reload at once, logs why and
// keeps the credentials in use; a later good file reloads. Before, the
// reload blocked forever and every later one queued behind it.
func TestReloadSurvivesFIFO(t *testing.T) {
	file := writeFile(t, "tokens", tokA+"\n")
	certPEM, keyPEM, _ := testCert(t, 1)
	certFile, keyFile := tlsFiles(t, certPEM, keyPEM)
	r := start(t, Options{TokenFile: file, TLSCert: certFile, TLSKey: keyFile}, oneAgent())
	for _, path := range []string{file, certFile} {
		os.Remove(path)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	err := within(t, 20*time.Second, "Reload", r.srv.Reload)
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Reload: %v", err)
	}
	log := r.log.String()
	for _, want := range []string{
		`msg="token reload failed; keeping the tokens in use" err="token file ` + file + ` is a named pipe`,
		`msg="certificate reload failed; keeping the certificate in use" err="TLS certificate ` + certFile + ` is a named pipe`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if !r.srv.tokens.match(tokA) || r.srv.certs.cur.Load().Leaf.SerialNumber.Int64() != 1 {
		t.Fatal("the failed reload did not keep the token and certificate in use")
	}
	os.Remove(file)
	os.Remove(certFile)
	os.WriteFile(file, []byte(tokB+"\n"), 0o600)
	certPEM2, keyPEM2, _ := testCert(t, 2)
	os.WriteFile(certFile, certPEM2, 0o600)
	os.WriteFile(keyFile, keyPEM2, 0o600)
	if err := within(t, 20*time.Second, "Reload", r.srv.Reload); err != nil {
		t.Fatalf("good reload after the pipe: %v", err)
	}
	if r.srv.certs.cur.Load().Leaf.SerialNumber.Int64() != 2 {
		t.Fatalf("certificate after the good reload: serial %v", r.srv.certs.cur.Load().Leaf.SerialNumber)
	}
	if !r.srv.tokens.match(tokB) || r.srv.tokens.match(tokA) {
		t.Fatal("tokens after the good reload: want B only")
	}
}

// TestCredentialLimitsAreOptions: a server reads its credential files
// within Options.MaxCredentialBytes, at start and on Reload, and its
// message names the limit and the flag that raises it.
func TestCredentialLimitsAreOptions(t *testing.T) {
	file := writeFile(t, "tokens", tokA+"\n# a comment that takes the file past 64 bytes, nothing else\n")
	_, err := New(&Options{TokenFile: file, MaxCredentialBytes: 64}, oneAgent())
	if !errors.Is(err, ErrCredentialTooLarge) || !strings.Contains(err.Error(), "larger than 64 bytes") || !strings.Contains(err.Error(), "--max-credential-bytes") {
		t.Fatalf("a 64-byte limit: %v", err)
	}
	s, err := New(&Options{TokenFile: file, MaxCredentialBytes: 4096}, oneAgent())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(tokA+"\n"+strings.Repeat("#\n", 3000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(); !errors.Is(err, ErrCredentialTooLarge) || !strings.Contains(err.Error(), "larger than 4096 bytes") {
		t.Fatalf("a reload past the limit: %v", err)
	}
}
