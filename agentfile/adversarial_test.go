package agentfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
)

// genReader produces its input on the fly from chunk(i), i = 0, 1, …, until
// chunk returns nil, so tests can feed the parser far more bytes than they
// ever hold. It counts what was read.
type genReader struct {
	chunk func(i int) []byte
	i     int
	buf   []byte
	read  int64
}

func (g *genReader) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		b := g.chunk(g.i)
		if b == nil {
			return 0, io.EOF
		}
		g.buf, g.i = b, g.i+1
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	g.read += int64(n)
	return n, nil
}

// repeatReader is head, then unit(k) for k < n, then tail.
func repeatReader(head string, n int, unit func(k int) []byte, tail string) *genReader {
	return &genReader{chunk: func(i int) []byte {
		switch {
		case i == 0:
			return []byte(head)
		case i <= n:
			return unit(i - 1)
		case i == n+1 && tail != "":
			return []byte(tail)
		}
		return nil
	}}
}

const agentHead = "---\n3md: 1.0\ntitle: T\n---\n@plane z=0\n"

// TestAdversarialStreams feeds generated inputs far larger than any bound:
// each must be refused with the bound's flag and line, after reading little
// more than the bound, with allocation far below the input's size.
func TestAdversarialStreams(t *testing.T) {
	block := bytes.Repeat([]byte("a"), 4096)
	line := append(bytes.Repeat([]byte("x"), 4095), '\n')
	tenLinks := append(bytes.Repeat([]byte("[[z=0]] "), 10), '\n')
	for _, tt := range []struct {
		name     string
		short    bool // runs under -short
		r        *genReader
		opts     *Options
		flag     string
		line     int
		maxRead  int64 // bytes the parser may pull from r
		maxAlloc uint64
	}{
		{name: "50 MB line", short: true,
			r:    repeatReader(agentHead, 50<<20/len(block), func(int) []byte { return block }, "\nrest\n"),
			flag: "--max-line-bytes", line: 6, maxRead: DefaultMaxLineBytes + 256<<10, maxAlloc: 8 << 20},
		{name: "endless line", short: true,
			r:    &genReader{chunk: func(int) []byte { return block }},
			opts: &Options{Limits: Limits{MaxLineBytes: 1000}},
			flag: "--max-line-bytes", line: 1, maxRead: 256 << 10, maxAlloc: 1 << 20},
		{name: "endless directive line", short: true,
			r:    repeatReader(agentHead+"@plane z=1 label=\"", 1<<30, func(int) []byte { return block }, ""),
			flag: "--max-line-bytes", line: 6, maxRead: DefaultMaxLineBytes + 256<<10, maxAlloc: 8 << 20},
		{name: "a million planes", short: false,
			r:    repeatReader("---\n3md: 1.0\n---\n", 1_000_000, func(k int) []byte { return fmt.Appendf(nil, "@plane z=%d\n", k) }, ""),
			flag: "--max-planes", line: 3 + DefaultMaxPlanes + 1, maxRead: 5 << 20, maxAlloc: 400 << 20}, // growing Planes to 250,000 allocates ~270 MB in all,
		{name: "a million planes, small bound", short: true,
			r:    repeatReader("---\n3md: 1.0\n---\n", 1_000_000, func(k int) []byte { return fmt.Appendf(nil, "@plane z=%d\n", k) }, ""),
			opts: &Options{Limits: Limits{MaxPlanes: 1000}},
			flag: "--max-planes", line: 1004, maxRead: 128 << 10, maxAlloc: 4 << 20},
		{name: "a million links and more", short: false,
			r:    repeatReader(agentHead, 1<<30, func(int) []byte { return tenLinks }, ""),
			flag: "--max-links", line: 5 + DefaultMaxLinks/10 + 1, maxRead: 8 << 20, maxAlloc: 768 << 20},
		{name: "endless links, small bound", short: true,
			r:    repeatReader(agentHead, 1<<30, func(int) []byte { return tenLinks }, ""),
			opts: &Options{Limits: Limits{MaxLinks: 5000}},
			flag: "--max-links", line: 5 + 500 + 1, maxRead: 128 << 10, maxAlloc: 4 << 20},
		{name: "endless frontmatter", short: true,
			r:    repeatReader("---\n", 1<<30, func(k int) []byte { return fmt.Appendf(nil, "k%d: v\n", k) }, ""),
			flag: "--max-frontmatter-lines", line: 1 + DefaultMaxFrontmatterLines + 1, maxRead: 256 << 10, maxAlloc: 16 << 20},
		{name: "endless body past max bytes", short: true,
			r:    repeatReader(agentHead, 1<<30, func(int) []byte { return []byte("body line\n") }, ""),
			opts: &Options{Limits: Limits{MaxBytes: 1 << 20}},
			flag: "--max-bytes", line: 5 + (1<<20-len(agentHead))/10 + 1, maxRead: 1<<20 + 128<<10, maxAlloc: 4 << 20},
		{name: "input past default max bytes", short: false,
			r:    repeatReader(agentHead, 1<<30, func(int) []byte { return line }, ""),
			flag: "--max-bytes", line: 5 + (DefaultMaxBytes-len(agentHead))/4096 + 1, maxRead: DefaultMaxBytes + 128<<10, maxAlloc: 8 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && !tt.short {
				t.Skip("long stream")
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Parse(tt.r, tt.opts)
			runtime.ReadMemStats(&after)
			checkLimitError(t, err, tt.flag, tt.line)
			if tt.r.read > tt.maxRead {
				t.Errorf("read %d bytes of the input, want at most %d", tt.r.read, tt.maxRead)
			}
			if d := after.TotalAlloc - before.TotalAlloc; d > tt.maxAlloc {
				t.Errorf("allocated %d KB, want at most %d KB", d>>10, tt.maxAlloc>>10)
			}
		})
	}
}

// failingReader returns its data, then err.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestReadFailure: an I/O error is a readFailed ParseError wrapping the
// reader's error, positioned at the line it was reading.
func TestReadFailure(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := Parse(&failingReader{data: []byte(agentHead + "body\n"), err: boom}, &Options{File: "x.3md"})
	var pe *ParseError
	if !errors.Is(err, boom) || !errors.As(err, &pe) || pe.Name != ReadFailed || pe.Line != 7 || pe.Offset != int64(len(agentHead)+5) {
		t.Fatalf("got %v (%#v)", err, pe)
	}
}
