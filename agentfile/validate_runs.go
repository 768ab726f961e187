package agentfile

import (
	"path"
	"strings"

	"github.com/agent3md/agent3md/internal/shelltmpl"
)

// RuleToolRunsValue (warning): a placeholder whose value the command runs
// as a program or as code: the command's name itself ({cmd} --version, a
// ; {next} after an operator), or the code argument of a shell or an
// interpreter (sh -c {script}, python3 -c {code}, node -e {js}). Quoting
// keeps such a value one word, but the word is then run: whoever fills
// the skill (a model, through fill_skill) chooses what runs. The template
// is filled as it was; the warning tells its author (docs/run-guard.md,
// "Where a placeholder may sit").
const RuleToolRunsValue = "tool-runs-value"

// codeOptions are the interpreters whose option takes code to run, by the
// command's base name; for the shells any single-dash cluster ending in c
// (-c, -lc, -ec) counts.
var codeOptions = map[string][]string{
	"python": {"-c"}, "python3": {"-c"}, "python2": {"-c"},
	"node": {"-e", "--eval", "-p", "--print"}, "deno": {"eval"}, "bun": {"-e", "--eval"},
	"perl": {"-e", "-E"}, "ruby": {"-e"}, "php": {"-r"}, "lua": {"-e"},
	"osascript": {"-e"}, "pwsh": {"-c", "-Command"}, "powershell": {"-c", "-Command"},
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "ash": true}

// runsCode reports whether option, given to command, takes code to run.
func runsCode(command, option string) bool {
	base := path.Base(command)
	if shells[base] {
		return len(option) >= 2 && option[0] == '-' && option[1] != '-' && option[len(option)-1] == 'c'
	}
	for _, o := range codeOptions[base] {
		if option == o {
			return true
		}
	}
	return false
}

// mayRunValue is a cheap test that a template could hold such a
// placeholder, so that the common template ("rg {pattern} {path}") is not
// parsed: a placeholder first, an operator after which a placeholder may
// start a command, or an interpreter's code option.
func mayRunValue(tool string) bool {
	t := strings.TrimLeft(tool, " \t")
	if strings.HasPrefix(t, "{") || strings.ContainsAny(t, ";&|(`\n") {
		return true
	}
	for _, o := range []string{" -c ", " -e ", " -E ", " -r ", " -p ", " --eval ", " --print ", " -Command ", " eval "} {
		if strings.Contains(t, o) {
			return true
		}
	}
	// A shell's option cluster (-lc, -ec) right before the placeholder.
	return strings.Contains(t, "c {") || strings.Contains(t, "c \"{") || strings.Contains(t, "c '{")
}

// toolRunsValue warns of each placeholder the skill's command runs.
func (v *validation) toolRunsValue(s *Skill, pl *Plane) {
	if !s.HasTool || strings.IndexByte(s.Tool, '{') < 0 || !mayRunValue(s.Tool) {
		return
	}
	t := shelltmpl.Analyze(s.Tool)
	if len(t.Problems) > 0 {
		return // tool-quote has it, and nothing is filled
	}
	seen := map[string]bool{}
	for _, p := range t.Placeholders {
		if seen[p.Name] {
			continue
		}
		switch {
		case p.Role == shelltmpl.CommandName:
			seen[p.Name] = true
			v.warnf(RuleToolRunsValue, pl, "skill %s command runs the value of {%s} as the program: whoever fills the skill chooses what runs; name the program in the template and pass {%s} to it as an argument",
				quoted(s.Name), p.Name, p.Name)
		case p.Role == shelltmpl.OptionArgument && runsCode(p.Command, p.Option):
			seen[p.Name] = true
			v.warnf(RuleToolRunsValue, pl, "skill %s command passes {%s} to %s %s, which runs it as code: whoever fills the skill chooses what runs; pass the value as data (an argument or a file) to a script the template names",
				quoted(s.Name), p.Name, path.Base(p.Command), p.Option)
		}
	}
}
