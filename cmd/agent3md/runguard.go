package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agent3md/agent3md/internal/termsafe"
	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// runGuard decides whether run --exec may run a fill. In order, it refuses:
// a relaxed match (no trigger phrase matched) unless --skill named the
// skill; a template that is unsafe to fill; a fill that is not ready
// (missing, invalid or unbound inputs); a skill with nothing to run; and a
// skill with a cost= tag, unless --yes is given or, on a terminal, the
// user types y at the prompt, which shows the command a yes runs. Each refusal says what to add to go ahead.
type runGuard struct {
	yes   bool      // --yes
	named bool      // --skill named the skill
	tty   bool      // stdin is a terminal: a cost may be confirmed there
	in    io.Reader // where a confirmation is read
	out   io.Writer // where the prompt goes (stderr)
}

func refused(format string, args ...any) error {
	return &exitError{code: exitRefused, err: fmt.Errorf(format, args...)}
}

func (g *runGuard) check(ch *choice, cost string, f *loader.Fill) error {
	if ch.tier != "" && !router.Sure(ch.tier) && !g.named {
		return refused("not running %s: it is only a %s match (no trigger phrase matched and the request does not name it; the evidence is %s); "+
			"if it is the skill you mean, add --skill %s", ch.name, ch.tier, strings.Join(ch.hits, ", "), ch.name)
	}
	if !f.HasTool {
		return refused("skill %q has no command to run; it is guidance only (read it with 'agent3md get')", f.Skill)
	}
	if len(f.Unsafe) > 0 {
		return refused("not running %s: its command template puts a placeholder where a value could run as code (see above); "+
			"the template must be fixed (agent3md validate reports it as tool-quote)", f.Skill)
	}
	if !f.Ready {
		return &exitError{code: exitNotReady, err: notReady(f, true)}
	}
	if g.yes || !loader.NeedsConfirmation(cost, false) { // a relaxed match was refused above unless --skill named it
		return nil
	}
	if g.tty {
		// Show what a yes runs, byte for byte but for what a terminal
		// would not show as text: a value could otherwise hide or fake
		// the command behind escape sequences, a carriage return or a
		// right-to-left override.
		shown, escaped := termsafe.Show(f.Command)
		fmt.Fprintf(g.out, "%s is tagged cost=%s. It would run:\n  $ %s\n", f.Skill, cost, shown)
		if escaped {
			fmt.Fprintf(g.out, "  (bytes a terminal would not show as text are written as \\xNN or \\uNNNN)\n")
		}
		fmt.Fprintf(g.out, "Run it? [y/N] ")
		if confirmed(g.in) {
			return nil
		}
		return refused("not running %s: not confirmed (add --yes to run it without asking)", f.Skill)
	}
	return refused("not running %s: it is tagged cost=%s; add --yes to run it", f.Skill, cost)
}

// notReady says why a fill that has a command cannot run: the guard's
// refusal when running, else what a printed fill lacks.
func notReady(f *loader.Fill, running bool) error {
	parts := f.Problems()
	if len(parts) == 0 {
		return errors.New("the fill is not ready")
	}
	if !running {
		return fmt.Errorf("%s's command is not ready to run: %s", f.Skill, strings.Join(parts, "; "))
	}
	return fmt.Errorf("not running %s: %s", f.Skill, strings.Join(parts, "; "))
}

// confirmed reads one answer line, byte by byte so that nothing after it
// is taken from the command's stdin, and reports a yes.
func confirmed(in io.Reader) bool {
	var line []byte
	b := make([]byte, 1)
	for len(line) < 64 {
		n, err := in.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		if err != nil {
			break
		}
	}
	ans := strings.ToLower(strings.TrimSpace(string(line)))
	return ans == "y" || ans == "yes"
}
