package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/agent3md/agent3md/agentfile"
)

// parseCmd is `agent3md parse`: scan one agent file and print its planes.
func (a *app) parseCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "parse FILE",
		Short: "Scan a 3md file and print its planes (or, with --json, the conformance-vector view)",
		Long: `parse scans FILE with the bounded streaming parser. By default it prints a
summary a person can read: frontmatter, then one line per plane. With --json
it prints {"document": …, "links": […]} in the exact shape of the 3md
conformance vectors (bodies read back lazily), or {"error", "line",
"message"} and exit status 1 when the file does not parse.`,
		Example: `  agent3md parse examples/devtools.3md
  agent3md parse --json examples/devtools.3md | jq '.document.planes[1]'`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			return a.parse(args[0], asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the document and links as JSON")
	a.addLimitFlags(c.Flags())
	return c
}

func (a *app) parse(arg string, asJSON bool) error {
	err := a.parseFile(arg, asJSON)
	if err == nil || !asJSON {
		return err
	}
	var s silent
	if errors.As(err, &s) {
		return err // the JSON answer is already out
	}
	// --json promises JSON on stdout whatever goes wrong: a file that
	// cannot be read is {"error": "io", …} with exit status 2.
	code := exitUsage
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	writeJSON(a.stdout, map[string]any{"error": "io", "file": arg, "message": err.Error()})
	fmt.Fprintf(a.stderr, "agent3md: %v\n", err)
	return silent(code)
}

func (a *app) parseFile(arg string, asJSON bool) error {
	f, name, err := a.openAgentFile(arg)
	if err != nil {
		return err
	}
	defer f.Close()
	cat, err := agentfile.Parse(f, &agentfile.Options{File: name, Limits: a.limits})
	if err != nil {
		var pe *agentfile.ParseError
		if !errors.As(err, &pe) || pe.Name == agentfile.ReadFailed {
			return ioError(err)
		}
		if asJSON {
			writeJSON(a.stdout, map[string]any{"error": pe.Name, "line": pe.Line, "message": pe.Msg})
			fmt.Fprintln(a.stderr, err)
			return silent(exitInvalid)
		}
		return invalid(err)
	}
	if asJSON {
		doc, err := cat.Document(f)
		if err != nil {
			return ioError(err)
		}
		return writeJSON(a.stdout, map[string]any{"document": doc, "links": cat.DocLinks()})
	}
	return cat.WriteSummary(a.stdout, name)
}

// openAgentFile opens an agent file argument for the commands that scan it
// themselves (parse, validate): a regular file, or "-" for standard input.
func (a *app) openAgentFile(arg string) (f *os.File, name string, err error) {
	path, name, err := a.agentPath(arg)
	if err != nil {
		return nil, "", err
	}
	f, err = openRegular(path)
	return f, name, err
}

func writeJSON(out io.Writer, v any) error {
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return w.Flush()
}
