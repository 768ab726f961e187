// Command agent3md loads an agent3md/1 file and serves its skills: over MCP
// (agent3md mcp agent.3md), or from the command line (route, get, resolve,
// run, export, …). Run `agent3md --help` for the list.
//
// Each command lives in the file named for it (mcp.go, serve.go,
// selftest.go, parse.go, validate.go, get.go, …), its helpers beside it
// under the same prefix (selftesthttp.go, serveready.go, mcphint.go); the
// flags the two serving commands share are serverflags.go's, and root.go
// wires the commands together and opens agents for them.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/agent3md/agent3md/internal/termsafe"
	"github.com/agent3md/agent3md/loader"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version, when a release build sets it with -ldflags "-X main.version=…",
// overrides the module version read from the build info.
var version = ""

// commit, set with -ldflags "-X main.commit=…" by `just build` and
// goreleaser, names the commit when the build info has none: a build with
// -buildvcs=false, or from a tree without .git (docs/install.md).
var commit = ""

// Exit codes (docs/cli.md, docs/architecture.md §7): 0 success, 1 the input is invalid or a check
// failed, 2 usage or I/O error.
const (
	exitOK      = 0
	exitInvalid = 1
	exitUsage   = 2
)

// exitError carries an exit code with the error to print.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// invalid marks err as "the input is invalid" (exit 1).
func invalid(err error) error { return &exitError{code: exitInvalid, err: err} }

// ioError marks err as a usage or I/O failure (exit 2).
func ioError(err error) error { return &exitError{code: exitUsage, err: err} }

// silent is an exit status whose message was already printed.
type silent int

func (s silent) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns its exit code. Tests call it
// with their own readers and writers.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: termsafe.Wrap(stdout), stderr: termsafe.Wrap(stderr), rawStdout: stdout, rawStderr: stderr, argv: args}
	defer func() {
		for _, f := range a.cleanups {
			f()
		}
		// The catalog of an agent this run scanned is written in the
		// background; without it the next run would scan again.
		loader.FlushCatalogCache()
	}()
	root := newRoot(a)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var s silent
	if errors.As(err, &s) {
		return int(s)
	}
	// Through the terminal-safe writer: an error may quote what a file or
	// a server said, escape sequences included.
	fmt.Fprintf(a.stderr, "agent3md: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// Anything cobra itself rejects (unknown flag, wrong argument count) is
	// a usage error.
	return exitUsage
}
