package shelltmpl

import (
	"fmt"
	"strings"
)

// Argv splits a filled command into the arguments sh would pass to it, for
// running without a shell. It reads only what filling a Plain template
// produces — words of plain characters (those Template.Plain allows)
// separated by blanks, '…' strings, and backslash-escaped characters — and
// returns an error for anything else rather than guess what a shell would
// do with it. It works on bytes, as sh does: a value may hold any byte but
// NUL, valid UTF-8 or not.
func Argv(filled string) ([]string, error) {
	var argv []string
	var b strings.Builder
	inWord := false
	for i := 0; i < len(filled); i++ {
		c := filled[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				argv = append(argv, b.String())
				b.Reset()
				inWord = false
			}
			continue
		case c == '\'':
			j := strings.IndexByte(filled[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("the filled command has an unterminated ' string")
			}
			b.WriteString(filled[i+1 : i+1+j])
			i += j + 1
		case c == '\\' && i+1 < len(filled):
			i++
			if filled[i] == '\n' {
				continue // a line continuation joins the lines
			}
			b.WriteByte(filled[i])
		case c == 0:
			return nil, fmt.Errorf("the filled command holds a NUL byte, which no argument can carry")
		case plainChars(filled[i : i+1]):
			b.WriteByte(c)
		default:
			return nil, fmt.Errorf("the filled command holds %q outside quotes, which a shell would interpret; run it with sh -c", c)
		}
		inWord = true
	}
	if inWord {
		argv = append(argv, b.String())
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("the filled command is empty")
	}
	if strings.Contains(argv[0], "=") && !strings.HasPrefix(filled, "'") {
		return nil, fmt.Errorf("the filled command starts with an assignment, which only a shell runs")
	}
	return argv, nil
}
