package agentfile

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/agent3md/agent3md/internal/synth"
)

// TestWriteBinaryIsMarshalBinary: the streamed encoding is MarshalBinary's
// byte for byte, on every known source and on a synthetic agent large
// enough to be written in many chunks.
func TestWriteBinaryIsMarshalBinary(t *testing.T) {
	srcs := catalogSources(t)
	if !testing.Short() {
		b, err := os.ReadFile(synth.Path(t, 1000))
		if err != nil {
			t.Fatal(err)
		}
		srcs["synth-1000"] = b
	}
	for name, src := range srcs {
		cat, err := Parse(bytes.NewReader(src), nil)
		if err != nil {
			continue
		}
		want, err := cat.MarshalBinary()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got bytes.Buffer
		if err := cat.WriteBinary(&got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: WriteBinary wrote %d bytes that differ from MarshalBinary's %d", name, got.Len(), len(want))
		}
		if name == "synth-1000" && len(want) < 4*encodeChunk {
			t.Errorf("the synthetic catalog encodes to %d bytes, too few to test chunking", len(want))
		}
	}
}

// TestWriteBinaryWriteError: the first write error is returned, and a
// partial catalog is refused as MarshalBinary refuses it.
func TestWriteBinaryWriteError(t *testing.T) {
	cat, err := Parse(bytes.NewReader([]byte("---\n3md: 1.0\n---\n@plane z=0\nhi\n")), nil)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	if err := cat.WriteBinary(failWriter{boom}); !errors.Is(err, boom) {
		t.Errorf("WriteBinary = %v, want %v", err, boom)
	}
	cat.Partial = true
	if err := cat.WriteBinary(&bytes.Buffer{}); err == nil {
		t.Error("a partial catalog was encoded")
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }
