package main

import (
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"golang.org/x/term"
)

// Text from an agent file or a skills folder (names, triggers,
// descriptions, bodies, file names) is not ours: one carrying an escape
// sequence would reach the user's terminal through `skills`, `route`,
// `validate` or an error message, and could retitle the window, write
// the clipboard (OSC 52) or hide and fake what is shown. So when stdout
// or stderr is a terminal, what the commands write there goes through
// termSafe, which shows every control character as an escape ("\x1b")
// instead of sending it. A pipe or a file gets the bytes unchanged, so
// scripts and `get > file` see exactly what the agent holds; the MCP
// stream, the progress bar and a run command's own output never pass
// through it (docs/cli.md).

// termSafeWriter escapes control characters on their way to a terminal:
// C0 controls but tab and newline, DEL, C1 controls (U+0080–U+009F, which
// some terminals read as CSI and the like) and bytes that are not UTF-8.
type termSafeWriter struct {
	w       io.Writer
	pending []byte // the start of a rune a Write ended inside
	buf     []byte
}

// termSafe returns w wrapped in a termSafeWriter when w is a terminal,
// else w itself.
func termSafe(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &termSafeWriter{w: w}
	}
	return w
}

func (t *termSafeWriter) Write(p []byte) (int, error) {
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
