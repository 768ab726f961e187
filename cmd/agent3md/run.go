package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/childproc"
	"github.com/agent3md/agent3md/internal/termsafe"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// Exit codes of run beyond 0 (done), 1 (invalid agent file or argument) and
// 2 (usage or I/O error); docs/run-guard.md lists them. They sit where
// commands rarely exit — above curl's codes (up to 99), Rust's panic (101)
// and daemontools' 100/111, below the shells' 126-165 — so a script can
// tell the guard's verdicts from a command's failure. With --exec, a
// command that ran passes its own exit status through.
const (
	exitNoMatch  = 120 // routing found no skill for the request
	exitRefused  = 121 // the guard would not run it (see runGuard)
	exitNotReady = 122 // inputs missing, invalid or unbound
)

type runFlags struct {
	skill  string
	doExec bool
	asJSON bool
	yes    bool
}

func (a *app) runCmd() *cobra.Command {
	var fl runFlags
	c := &cobra.Command{
		Use:   "run FILE [TEXT] [NAME=VALUE...]",
		Short: "Route a request, fill the chosen skill's command, and print (or run) it",
		Long: `run is the whole loop on the command line: route TEXT to the best skill (or
take --skill, and then every argument after FILE may be NAME=VALUE), fill its
command template with the NAME=VALUE pairs (each value shell-quoted, typed
inputs checked), and print the command. The chosen skill, its match tier and
the evidence are always printed on stderr, as "→ skill (tier: evidence)".

With --exec it runs the command, guarded: never when an input is missing,
invalid or unbound, or a value would become an option; never on a relaxed
match unless --skill names the skill; and a skill with a cost= tag only with
--yes (or a "y" typed at the prompt when stdin is a terminal). A template of
plain words runs directly, without a shell; any other through sh -c.

Exit status: 0 done (with --exec: the command's own status), 1 invalid agent
file or argument, 2 usage or I/O error, 120 no skill matched, 121 refused by
the guard, 122 inputs missing or invalid. See docs/run-guard.md.`,
		Example: `  agent3md run examples/devtools.3md "search the code for parseConfig" pattern=parseConfig path=.   # → search-code
  agent3md run --exec --skill search-code examples/devtools.3md pattern=TODO path=.
  agent3md run --exec --yes --skill rollback-deploy examples/oncall.3md service=api namespace=prod revision=3`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			text, pairs, err := splitRunArgs(args[1:], fl.skill != "")
			if err != nil {
				return err
			}
			values, err := loader.ParseValues(pairs)
			if err != nil {
				return ioError(err)
			}
			a.useCache = true
			return a.withAgent(args[0], func(ag *loader.Agent) error {
				return a.runSkill(c, ag, args[0], text, values, &fl)
			})
		},
	}
	c.Flags().StringVar(&fl.skill, "skill", "", "use this skill instead of routing TEXT (then TEXT may be left out)")
	c.Flags().BoolVar(&fl.doExec, "exec", false, "run the filled command (guarded: see --help)")
	c.Flags().BoolVar(&fl.yes, "yes", false, "with --exec, run a skill that has a cost= tag without asking")
	c.Flags().BoolVar(&fl.asJSON, "json", false, "print the fill result as JSON")
	a.addLimitFlags(c.Flags())
	a.addCacheFlags(c.Flags())
	return c
}

// splitRunArgs separates the request text from the NAME=VALUE pairs.
// Without --skill the first argument is always the text. With --skill no
// text is needed: every NAME=VALUE argument is a value, and one argument
// that is not (often "") may come first as text, which is then unused.
func splitRunArgs(rest []string, named bool) (string, []string, error) {
	if !named {
		if len(rest) == 0 {
			return "", nil, ioError(errors.New("run: give the request TEXT to route, or name the skill with --skill\nusage: agent3md run FILE [TEXT] [NAME=VALUE...]"))
		}
		return rest[0], rest[1:], nil
	}
	if len(rest) > 0 && !loader.IsValueArg(rest[0]) {
		return rest[0], rest[1:], nil
	}
	return "", rest, nil
}

// choice is the skill run works on and why.
type choice struct {
	name string
	tier string // router.TierPhrase, router.TierRelaxed, or "" for --skill
	hits []string
}

// String is the guard line's text after the arrow.
func (ch *choice) String() string {
	if ch.tier == "" {
		return ch.name + " (named by --skill)"
	}
	return fmt.Sprintf("%s (%s: %s)", ch.name, ch.tier, strings.Join(ch.hits, ", "))
}

func (a *app) choose(c *cobra.Command, ag *loader.Agent, file, text, skill string) (*choice, error) {
	if skill != "" {
		return &choice{name: skill}, nil
	}
	matches, err := a.route(c, ag, text, &router.Query{Mode: router.Ranked, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(matches) == 0 {
		hint := ""
		if loader.IsValueArg(text) {
			// "run FILE pattern=x" forgot the request: the first
			// argument after FILE is always the text.
			hint = fmt.Sprintf("; %q was read as the request TEXT, which comes right after FILE: agent3md run %s \"TEXT\" %s", text, shellWord(file), shellWord(text))
		}
		return nil, &exitError{code: exitNoMatch, err: fmt.Errorf("no skill matched %q; name one with --skill (see 'agent3md skills %s')%s", text, shellWord(file), hint)}
	}
	m := matches[0]
	return &choice{name: m.Name, tier: m.Tier, hits: m.Hits}, nil
}

func (a *app) runSkill(c *cobra.Command, ag *loader.Agent, file, text string, values map[string]string, fl *runFlags) error {
	ch, err := a.choose(c, ag, file, text, fl.skill)
	if err != nil {
		return err
	}
	sk, err := ag.Skill(ch.name)
	if err != nil {
		return skillError(ag, file, err)
	}
	line := "→ " + ch.String()
	if sk.Cost != "" {
		line += " [cost=" + sk.Cost + "]"
	}
	fmt.Fprintln(a.stderr, line)
	f, err := ag.Command(ch.name, values)
	if err != nil {
		return skillError(ag, file, err)
	}
	if fl.asJSON {
		if err := writeJSON(a.stdout, f); err != nil {
			return ioError(err)
		}
	}
	if !fl.doExec {
		if !fl.asJSON {
			printCommand(a.stdout, a.stderr, f)
			printIgnored(a.stderr, f, sk)
		}
		if f.HasTool && !f.Ready && len(f.Unsafe) == 0 {
			// The same words as the guard's refusal, with what to add:
			// every refusal of run is a line starting "agent3md:".
			return &exitError{code: exitNotReady, err: notReady(f, false)}
		}
		return fillVerdict(f)
	}
	if !fl.asJSON {
		if len(f.Unsafe) > 0 {
			printCommand(a.stdout, a.stderr, f)
		}
		printIgnored(a.stderr, f, sk) // the guard's refusal says the rest
	}
	g := &runGuard{yes: fl.yes, named: fl.skill != "", in: a.stdin, out: a.stderr, tty: isTerminal(a.stdin)}
	if err := g.check(ch, sk.Cost, f); err != nil {
		if f.HasTool && len(f.Unsafe) == 0 {
			shown, _ := termsafe.Show(f.Command)
			fmt.Fprintf(a.stderr, "not run: %s\n", shown)
		}
		return err
	}
	// stdout carries only the command's own output. The echo goes through
	// termsafe.Show whatever stderr is (a log a terminal shows later, a
	// pipe to less -R): a value's ESC bytes, carriage returns or newlines
	// must not retitle a window or fake the lines around it.
	shown, _ := termsafe.Show(f.Command)
	fmt.Fprintf(a.stderr, "$ %s\n", shown)
	return a.execFill(c, f)
}

// fillVerdict is the exit status of a fill that is only printed: 0 when it
// is ready (or there is no command to fill), else why not.
func fillVerdict(f *loader.Fill) error {
	switch {
	case !f.HasTool || f.Ready:
		return nil
	case len(f.Unsafe) > 0:
		return silent(exitRefused)
	default:
		return silent(exitNotReady)
	}
}

// printCommand writes the filled command to out, or, when the template is
// unsafe to fill, why to errw; a skill without a command gets a note.
func printCommand(out, errw io.Writer, f *loader.Fill) {
	switch {
	case !f.HasTool:
		fmt.Fprintf(out, "skill %s has no command (guidance only); read it with 'agent3md get'\n", f.Skill)
	case len(f.Unsafe) == 0:
		fmt.Fprintf(out, "%s\n", f.Command)
	default:
		io.WriteString(errw, f.UnsafeNote())
	}
}

// printIgnored names the values given for inputs the skill does not
// declare (loader.Fill.IgnoredNote).
func printIgnored(errw io.Writer, f *loader.Fill, sk *agentfile.Skill) {
	if note := f.IgnoredNote(sk.Inputs); note != "" {
		fmt.Fprintln(errw, note)
	}
}

// execFill runs a ready fill (loader.Fill.Cmd: a plain template's words
// directly as argv, anything else through sh -c) as a wrapper
// (internal/childproc): SIGTERM and SIGHUP sent to agent3md reach the
// command, and its exit status is run's.
func (a *app) execFill(_ *cobra.Command, f *loader.Fill) error {
	cmd := f.Cmd()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = a.stdin, a.rawStdout, a.rawStderr // the command's own output, as it writes it
	code, err := childproc.Run(cmd, isTerminal(a.stdin))
	if err != nil {
		return &exitError{code: code, err: fmt.Errorf("cannot run %s: %w", cmd.Path, err)}
	}
	if code != 0 {
		return silent(code)
	}
	return nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
