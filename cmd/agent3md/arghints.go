package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// swappedFile catches the agent file given second to a command whose
// usage puts it first (route FILE TEXT, get FILE SKILL, run FILE TEXT):
// when the first argument names nothing and the second is a file, the
// two were swapped, and "cannot read agent file: stat why are the tests
// failing" would not say so.
func swappedFile(c *cobra.Command, args []string) error {
	if len(args) < 2 || !strings.HasPrefix(c.Use, c.Name()+" FILE ") || args[0] == stdinArg {
		return nil
	}
	if _, err := os.Stat(args[0]); !os.IsNotExist(err) {
		return nil
	}
	if st, err := os.Stat(args[1]); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return ioError(fmt.Errorf("%q is no file and %q is one: the agent file comes first, e.g. agent3md %s %s %s\nusage: %s",
		args[0], args[1], c.Name(), shellWord(args[1]), shellQuote(args[0]), c.UseLine()))
}

// shellQuote single-quotes s for a shell unless it needs nothing.
func shellQuote(s string) string {
	if shellWord(s) == s {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// valueHint explains an unknown --name=value flag to a command that takes
// a skill's inputs as NAME=VALUE words (run): "--env=staging" was meant
// as the input env. The parser's error names "--env" alone, so the value
// is found in argv, the command line as typed ("VALUE" when it is not
// there, as in "--env staging").
func valueHint(c *cobra.Command, word string, argv []string) string {
	if !strings.Contains(c.Use, "NAME=VALUE") {
		return ""
	}
	name, value, ok := strings.Cut(strings.TrimPrefix(word, "--"), "=")
	for _, a := range argv {
		if v, found := strings.CutPrefix(a, "--"+name+"="); found && !ok {
			value, ok = v, true
		}
	}
	if !ok {
		value = "VALUE"
	}
	return fmt.Sprintf("; a skill's inputs are NAME=VALUE words without dashes: %s", shellQuote(name+"="+value))
}
