package agentfile

import (
	"bytes"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"":            "",
		"a\r\nb":      "a\nb",
		"a\rb":        "a\rb",
		"a\r\r\n":     "a\r\n",
		"\r\n\r\n":    "\n\n",
		"a\r":         "a\r",
		"no carriage": "no carriage",
	} {
		if got := string(Normalize([]byte(in))); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func crcOf(s string) uint32 { return crc32.Checksum([]byte(s), castagnoli) }

// TestReadSpan: spans read back verbatim and normalised; anything that does
// not match the scan is an error wrapping ErrChanged, and a malformed span
// is an error, never a panic.
func TestReadSpan(t *testing.T) {
	file := []byte("head\r\nbo\x00dy\r\nend\xff")
	for _, tt := range []struct {
		name    string
		span    Span
		crc     uint32
		want    string
		changed bool // error wraps ErrChanged
		fails   bool
	}{
		{name: "crlf normalised", span: Span{6, 16}, crc: crcOf("bo\x00dy\nend"), want: "bo\x00dy\nend"},
		{name: "invalid UTF-8 verbatim", span: Span{13, 17}, crc: crcOf("end\xff"), want: "end\xff"},
		{name: "empty", span: Span{3, 3}, crc: 0, want: ""},
		{name: "checksum mismatch", span: Span{0, 4}, crc: crcOf("HEAD"), changed: true, fails: true},
		{name: "past the end", span: Span{10, 40}, crc: 1, changed: true, fails: true},
		{name: "empty with a checksum", span: Span{3, 3}, crc: 7, changed: true, fails: true},
		{name: "inverted", span: Span{9, 2}, crc: 0, fails: true},
		{name: "negative start", span: Span{-4, 2}, crc: 0, fails: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadSpan(bytes.NewReader(file), tt.span, tt.crc)
			if tt.fails {
				if err == nil || errors.Is(err, ErrChanged) != tt.changed {
					t.Fatalf("got %q, %v; want an error (ErrChanged: %v)", got, err, tt.changed)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestDocumentChangedFile: reading bodies back from a file that changed
// after the scan is refused, naming the plane.
func TestDocumentChangedFile(t *testing.T) {
	src := "---\n3md: 1.0\n---\npre\n@plane z=1\nbody one\n@plane z=2\nbody two\n"
	cat := mustParse(t, src)
	if _, err := cat.Document(strings.NewReader(src)); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(src, "two", "TWO", 1)
	_, err := cat.Document(strings.NewReader(edited))
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "z=2 (line 7)") {
		t.Fatalf("got %v", err)
	}
	_, err = cat.Document(strings.NewReader(strings.Replace(src, "pre", "PRE", 1)))
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "preamble (line 4)") {
		t.Fatalf("got %v", err)
	}
}
