package termsafe

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"
)

// writer escapes control characters on their way to a terminal:
// C0 controls but tab and newline, DEL, C1 controls (U+0080–U+009F, which
// some terminals read as CSI and the like) and bytes that are not UTF-8.
type writer struct {
	w       io.Writer
	pending []byte // the start of a rune a Write ended inside
	buf     []byte
}

// Wrap returns w wrapped in a writer that escapes control characters when
// w is a terminal, else w itself.
func Wrap(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &writer{w: w}
	}
	return w
}

func (t *writer) Write(p []byte) (int, error) {
	in := p
	if len(t.pending) > 0 {
		in = append(t.pending, p...)
		t.pending = nil
	}
	out := t.buf[:0]
	for len(in) > 0 {
		c := in[0]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f):
				out = append(out, c)
			default:
				out = fmt.Appendf(out, `\x%02x`, c)
			}
			in = in[1:]
			continue
		}
		if !utf8.FullRune(in) {
			t.pending = append([]byte(nil), in...) // finished by the next Write
			break
		}
		r, n := utf8.DecodeRune(in)
		switch {
		case r == utf8.RuneError && n == 1:
			out = fmt.Appendf(out, `\x%02x`, c)
		case r >= 0x80 && r <= 0x9f:
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, in[:n]...)
		}
		in = in[n:]
	}
	t.buf = out
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Show returns cmd, a command or any one line, for a person to read on a
// terminal before confirming it (run --exec's cost prompt): every byte as
// it is, but control characters (newline, tab and carriage return
// included), DEL, C1 controls, bytes that are not UTF-8, and Unicode
// format and separator characters (bidirectional overrides, zero-width
// characters, U+2028), which would move, hide or reorder what is shown,
// are written as \xNN or \uNNNN. escaped reports that one was. Unlike
// Wrap it escapes whatever the output is: what is shown must be what runs.
func Show(cmd string) (shown string, escaped bool) {
	var b strings.Builder
	for i := 0; i < len(cmd); {
		r, n := utf8.DecodeRuneInString(cmd[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, cmd[i])
			escaped = true
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
			escaped = true
		case (r >= 0x80 && r <= 0x9f) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			fmt.Fprintf(&b, `\u%04x`, r)
			escaped = true
		default:
			b.WriteString(cmd[i : i+n])
		}
		i += n
	}
	return b.String(), escaped
}
