package loader

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/shelltmpl"
)

// refuseOptions moves to Invalid each value that starts with "-" where
// the template does not prove it is no option: the command could read it
// as one ("-exec=…", "--pre=…", "-o …"), not as the input's text. A
// template cannot say which options take an argument (rg --smart-case
// takes none, rg -e takes one), so only these let such a value through: a
// "--" word earlier in the command, a long option's "--name=" right
// before it in its word, literal text that is not an option before it in
// its word (./{p}, name:{p}), or an assignment or redirection target.
// Invalid keeps its order: declared inputs first, then undeclared names.
func (f *Fill) refuseOptions(tool string, t *shelltmpl.Template, inputs []agentfile.Input, declared map[string]agentfile.Input, good map[string]string, optional map[string]bool) {
	refused := map[string]bool{}
	for _, p := range t.Placeholders {
		switch p.Role {
		case shelltmpl.Positional, shelltmpl.CommandName, shelltmpl.OptionArgument, shelltmpl.GluedOption:
		default:
			continue
		}
		v, ok := good[p.Name]
		if !ok || refused[p.Name] || !strings.HasPrefix(v, "-") || !allEmpty(p.Preceding, good) {
			continue
		}
		refused[p.Name] = true
		typ := "undeclared"
		if in, ok := declared[p.Name]; ok {
			typ = in.Type
		}
		f.Invalid = append(f.Invalid, InputProblem{Name: p.Name, Type: typ, Reason: optionReason(p, tool)})
	}
	if len(refused) == 0 {
		return
	}
	for n := range refused {
		delete(good, n)
	}
	rank := map[string]int{}
	for i, in := range inputs {
		if _, ok := rank[in.Name]; !ok {
			rank[in.Name] = i
		}
	}
	key := func(p InputProblem) (int, string) {
		if r, ok := rank[p.Name]; ok && p.Type != "undeclared" {
			return r, ""
		}
		return len(inputs), p.Name
	}
	sort.SliceStable(f.Invalid, func(i, j int) bool {
		ri, ni := key(f.Invalid[i])
		rj, nj := key(f.Invalid[j])
		return ri < rj || (ri == rj && ni < nj)
	})
}

// allEmpty reports whether every named value that precedes a placeholder
// in its word is empty, so that this one starts the argument.
func allEmpty(names []string, good map[string]string) bool {
	for _, n := range names {
		if good[n] != "" {
			return false
		}
	}
	return true
}

// optionReason says why a value starting with "-" is refused at p, and
// how the template could accept it.
func optionReason(p shelltmpl.Placeholder, tool string) string {
	cmd := "the command"
	if p.Command != "" {
		cmd = p.Command
	}
	const keep = "give a value that does not start with \"-\""
	switch p.Role {
	case shelltmpl.CommandName:
		return fmt.Sprintf("starts with \"-\" and {%s} is the command's name; a command name cannot start with \"-\"", p.Name)
	case shelltmpl.OptionArgument:
		long := "--name={" + p.Name + "} (the option's long name glued with =)"
		dashes := ""
		if p.Context == shelltmpl.Unquoted && len(p.Preceding) == 0 {
			dashes = fmt.Sprintf(" (%s-- %s)", tool[:p.Start], tool[p.Start:])
		}
		if strings.HasPrefix(p.Option, "--") {
			long = p.Option + "={" + p.Name + "}"
			if before := strings.TrimRight(tool[:p.Start], " \t"); p.Context == shelltmpl.Unquoted && len(p.Preceding) == 0 && strings.HasSuffix(before, " "+p.Option) {
				long += " (" + before + "=" + tool[p.Start:] + ")"
			}
		}
		return fmt.Sprintf("starts with \"-\", and nothing in the template says %s takes {%s} as its argument (a flag such as rg --smart-case takes none), so %s could read the value as an option; %s "+
			"(to accept such values, the skill's template must use %s if %s takes an argument, or put -- before {%s} if it takes none%s)",
			p.Option, p.Name, cmd, keep, long, p.Option, p.Name, dashes)
	case shelltmpl.GluedOption:
		return fmt.Sprintf("starts with \"-\" and is glued to an option in its word, so %s could read it as more options; %s "+
			"(to accept such values, the skill's template must use --name={%s}, the option's long name glued with =)", cmd, keep, p.Name)
	}
	fix := fmt.Sprintf("put -- before {%s}", p.Name)
	if p.Context == shelltmpl.Unquoted && len(p.Preceding) == 0 {
		fix += fmt.Sprintf(" (%s-- %s)", tool[:p.Start], tool[p.Start:])
	}
	return fmt.Sprintf("starts with \"-\", so %s would read it as an option, not as the {%s} argument; %s "+
		"(to accept such values, the skill's template must %s, or use --name={%s} if it is an option's value)",
		cmd, p.Name, keep, fix, p.Name)
}

// Argv returns the filled command as the arguments to run without a shell:
// the template's words, each value one argument, unquoted. ok is false
// unless the fill is ready and its template is Plain (no shell syntax);
// Command then has to run through sh -c.
func (f *Fill) Argv() (argv []string, ok bool) {
	if !f.Ready || !f.Plain {
		return nil, false
	}
	argv, err := shelltmpl.Argv(f.Command)
	return argv, err == nil
}
