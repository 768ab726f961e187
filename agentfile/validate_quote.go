package agentfile

import (
	"strings"

	"github.com/agent3md/agent3md/internal/shelltmpl"
)

// RuleToolQuote is the validator rule for command templates whose
// placeholders a value could escape (docs/run-guard.md). An error where
// the shell would not read the placeholder as quoted text (inside $(…),
// `…`, ${…}, arithmetic, a here-document or a comment, or in a word that
// also expands something), in a template holding a $'…' string or a
// brace expansion anywhere (bash and dash read them apart, so no quoting
// or reading of a value is right for both), and where the value would run: the command's
// name or the program a wrapper runs ({cmd}, env {cmd}, xargs {cmd}), code
// (sh -c {s}, python3 -c {s}, eval {s}, rg --pre={p}), or an option's name
// or letters (--x{p}, -l{p} when nothing proves -l takes an argument).
// Fill and run refuse such a template. A warning where a "--" before a
// placeholder does not end the options of the program that reads the
// value (env -- python3 {s}, grep -e -- {f}, a program agent3md does not
// know): the template is filled, but a value starting with "-" is
// refused, which the "--" suggests it was not.
const RuleToolQuote = "tool-quote"

// toolQuote reports each placeholder of the skill's command that cannot be
// filled safely, and each "--" that protects nothing, with the skill's
// directive line. tools is the frontmatter's tools: list.
//
// A "--" before a value of a program agent3md does not know is not
// reported when the agent declares the program in tools:: its author
// knows the program, the "--" is right for it, and the guard refusing a
// value that starts with "-" there (docs/run-guard.md §3) is said by fill
// and run when such a value comes. Reported, it taught authors to drop
// the separator. An undeclared one gets one short warning beside
// undeclared-tool's.
func (v *validation) toolQuote(s *Skill, pl *Plane, tools map[string]bool) {
	if !s.HasTool || strings.IndexByte(s.Tool, '{') < 0 {
		return // nothing is ever substituted, so nothing can escape
	}
	probs := shelltmpl.Problems(s.Tool)
	for _, p := range probs {
		if p.Name == "" {
			v.errorf(RuleToolQuote, pl, "skill %q command cannot be checked for safe quoting: %s", s.Name, p.Reason)
			continue
		}
		v.errorf(RuleToolQuote, pl, "skill %q command cannot hold {%s} there: %s", s.Name, p.Name, p.Reason)
	}
	if len(probs) > 0 || !strings.Contains(s.Tool, "--") {
		return // a void "--" needs a "--"; Analyze costs more than Problems
	}
	seen := map[string]bool{}
	for _, p := range shelltmpl.Analyze(s.Tool).Placeholders {
		if p.Void == "" || seen[p.Name] {
			continue
		}
		seen[p.Name] = true
		switch {
		case p.Known:
			v.warnf(RuleToolQuote, pl, "skill %q command: {%s}: %s, so a value starting with \"-\" is refused there; put a -- of %s itself right before {%s}, or pass it as --name={%s}",
				s.Name, p.Name, p.Void, p.Program, p.Name, p.Name)
		case declared(p.Program, tools):
			// Declared: see above.
		default:
			v.warnf(RuleToolQuote, pl, "skill %q command: agent3md does not know %s, so the -- before {%s} cannot prove its value is no option and a value starting with \"-\" is refused; if {%s} may start with \"-\", pass it as --name={%s} where %s has such an option",
				s.Name, p.Program, p.Name, p.Name, p.Name, p.Program)
		}
	}
}

// declared reports whether the program a placeholder's value goes to is
// one tools: declares: "git" for "git tag", whose subcommand agent3md
// may not know while the author declared the program.
func declared(program string, tools map[string]bool) bool {
	f := strings.Fields(program)
	return len(f) > 0 && tools[f[0]]
}
