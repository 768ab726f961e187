package shelltmpl

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Argv splits a filled command into the arguments sh would pass to it, for
// running without a shell. It accepts only one simple command whose words
// are plain text (the characters Template.Plain allows), '…' strings and
// backslash-escaped characters — what filling a Plain template produces —
// and returns an error for anything else, rather than guess what a shell
// would do with it.
func Argv(filled string) ([]string, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(filled), "")
	if err != nil {
		return nil, fmt.Errorf("the filled command does not parse: %w", err)
	}
	if len(f.Stmts) != 1 {
		return nil, fmt.Errorf("the filled command is %d commands, not one", len(f.Stmts))
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Negated || st.Background || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, fmt.Errorf("the filled command is not one simple command")
	}
	argv := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		var b strings.Builder
		for _, part := range w.Parts {
			switch p := part.(type) {
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.Lit:
				v, err := plainLit(p.Value)
				if err != nil {
					return nil, err
				}
				b.WriteString(v)
			default:
				return nil, fmt.Errorf("the filled command holds shell syntax the argv path does not run")
			}
		}
		argv = append(argv, b.String())
	}
	return argv, nil
}

// plainLit undoes the backslash escapes of unquoted text whose other
// characters are plain.
func plainLit(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			b.WriteByte(s[i])
			continue
		}
		if !plainChars(s[i : i+1]) {
			return "", fmt.Errorf("the filled command holds %q outside quotes, which a shell would interpret", c)
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}
