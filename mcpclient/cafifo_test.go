//go:build unix

package mcpclient_test

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agent3md/agent3md/internal/filekind"
	"github.com/agent3md/agent3md/mcpclient"
)

// TestHTTPClientWithCAFileFIFO: a named pipe given as the CA file is
// refused at once, not opened and waited on for a writer.
func TestHTTPClientWithCAFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ca.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := mcpclient.HTTPClientWithCAFile(fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, filekind.ErrNotRegular) {
			t.Fatalf("HTTPClientWithCAFile(fifo) = %v, want a not-a-regular-file error", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("HTTPClientWithCAFile blocked on a FIFO")
	}
}
