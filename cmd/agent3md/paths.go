package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent3md/agent3md/internal/filekind"
)

// One rule for an agent file argument, on every command: it is a regular
// file (any name; a name not ending in .3md gets a warning), or "-" for
// standard input on the commands that read one file. Pipes, sockets and
// devices are refused before anything opens them: opening a FIFO blocks
// until a writer comes, and the loader re-reads bodies by offset.

// stdinArg is the agent file argument that means standard input.
const stdinArg = "-"

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// checkAgentPath refuses what is not a regular file.
func checkAgentPath(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return ioError(fmt.Errorf("cannot read agent file: %w", err))
	}
	return regularFor(path, st.Mode(), true)
}

// checkServedPath is checkAgentPath for mcp and selftest, whose standard
// input is not the agent's: the refusal of a pipe or device must not
// suggest "-", which they refuse in turn.
func checkServedPath(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return ioError(fmt.Errorf("cannot read agent file: %w", err))
	}
	return regularFor(path, st.Mode(), false)
}

func regularFor(path string, m fs.FileMode, stdinOK bool) error {
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return ioError(fmt.Errorf("%s is a directory; pass an agent file, e.g. %s", path, filepath.Join(path, "agent.3md")))
	case stdinOK:
		return ioError(fmt.Errorf("%s is not a regular file (%s); pass the path of an agent file, or - to read one from standard input", path, filekind.Of(m)))
	default:
		return ioError(fmt.Errorf("%s is not a regular file (%s); pass the path of an agent file (save a stream to a file first)", path, filekind.Of(m)))
	}
}

// warnName warns about an agent file whose name does not end in .3md: it
// is read all the same, but a typo (agent.md for agent.3md) is likelier
// than an agent saved under another extension.
func (a *app) warnName(path string) {
	if a.warnedName {
		return // mcp reads the head, then the whole: one warning
	}
	a.warnedName = true
	if path != stdinArg && !strings.EqualFold(filepath.Ext(path), ".3md") {
		fmt.Fprintf(a.stderr, "agent3md: warning: %s does not end in .3md; reading it as an agent file anyway\n", path)
	}
}

// openRegular opens path for reading, refusing anything but a regular
// file, even one swapped in after a check (filekind.Open).
func openRegular(path string) (*os.File, error) {
	f, err := filekind.Open(path)
	var nr *filekind.NotRegularError
	if errors.As(err, &nr) {
		return nil, regularFor(path, nr.Mode, true)
	}
	if err != nil {
		return nil, ioError(fmt.Errorf("cannot read agent file: %w", err))
	}
	return f, nil
}

// agentPath resolves an agent file argument to a path to read and the
// name messages use: "-" becomes a temporary copy of standard input (at
// most --max-bytes of it), removed when the command ends.
func (a *app) agentPath(arg string) (path, name string, err error) {
	if arg != stdinArg {
		if err := checkAgentPath(arg); err != nil {
			return "", "", err
		}
		a.warnName(arg)
		return arg, arg, nil
	}
	if a.stdinPath != "" {
		return a.stdinPath, stdinName, nil
	}
	tmp, err := os.CreateTemp("", "agent3md-stdin-*.3md")
	if err != nil {
		return "", "", ioError(err)
	}
	a.cleanups = append(a.cleanups, func() { os.Remove(tmp.Name()) })
	max := a.limits.Effective().MaxBytes
	n, err := io.Copy(tmp, io.LimitReader(a.stdin, max+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", ioError(fmt.Errorf("reading the agent from standard input: %w", err))
	}
	if n > max {
		return "", "", invalid(fmt.Errorf("%s: the agent on standard input is larger than %d bytes (raise it with --max-bytes)", stdinName, max))
	}
	a.stdinPath = tmp.Name()
	return a.stdinPath, stdinName, nil
}

// noStdin refuses "-" on a command whose standard input is taken.
func noStdin(cmd, arg, why string) error {
	if arg == stdinArg {
		return ioError(errors.New(cmd + " cannot read the agent from standard input: " + why + "; pass the agent file's path"))
	}
	return nil
}
