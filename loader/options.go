package loader

import (
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/shelltmpl"
)

// refuseOptions moves to Invalid each value the command could read as an
// option rather than as the input's text ("-exec=…", "--pre=…", "-o …"):
// a value starting with "-" wherever the template does not prove it is
// no option (docs/run-guard.md §2), and any non-empty value glued to an
// option word whose other placeholders are empty ({a}-e{p} with {a}
// empty). Only these prove it: a "--" that ends the options of the very
// program that reads the value, an option the guard knows takes the value
// as its argument, a long option's "--name=" right before it, literal
// text that is not an option before it in its word (./{p}, name:{p}),
// or an assignment or redirection target. tool is the command as it
// will run (optional words without a value dropped), t its analysis.
// Invalid keeps its order: declared inputs first, then undeclared names.
func (f *Fill) refuseOptions(tool string, t *shelltmpl.Template, inputs []agentfile.Input, declared map[string]agentfile.Input, good map[string]string, optional map[string]bool) {
	refused := map[string]bool{}
	for _, p := range t.Placeholders {
		v, ok := good[p.Name]
		if !ok || refused[p.Name] || !allEmpty(p.Preceding, good) {
			continue
		}
		if p.At.ReadsFile(v) {
			refused[p.Name] = true
			f.Invalid = append(f.Invalid, InputProblem{Name: p.Name, Type: typeOf(declared, p.Name), Reason: atReason(p)})
			continue
		}
		switch p.Role {
		case shelltmpl.Positional, shelltmpl.OptionArgument:
			if !strings.HasPrefix(v, "-") {
				continue
			}
		case shelltmpl.GluedOption:
			if v == "" {
				continue
			}
		default:
			continue
		}
		refused[p.Name] = true
		f.Invalid = append(f.Invalid, InputProblem{Name: p.Name, Type: typeOf(declared, p.Name), Reason: optionReason(p, tool)})
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

// typeOf is the declared type of input name, or "undeclared".
func typeOf(declared map[string]agentfile.Input, name string) string {
	if in, ok := declared[name]; ok {
		return in.Type
	}
	return "undeclared"
}

// atReason says why a value is refused where p's program reads it as the
// name of a file (shelltmpl.AtRule).
func atReason(p shelltmpl.Placeholder) string {
	switch p.At {
	case shelltmpl.AtStart:
		if p.Program == "curl" {
			opt := p.Option
			if opt == "" {
				opt = "the option it is glued to"
			}
			return fmt.Sprintf("starts with \"@\", and curl reads the argument of %s from the file an @ names, so the value would send a local file; give a value that does not start with \"@\"", opt)
		}
		return fmt.Sprintf("starts with \"@\", and %s reads an argument starting with @ as a response file: it replaces it with the options written in that file (gcc's -wrapper PROG runs PROG), so the value could be an option; give a value that does not start with \"@\" (a file in the current directory can be named ./@name)", p.Program)
	case shelltmpl.AtBeforeEquals:
		return "holds \"@\" before any \"=\", and curl reads name@file or @file as the contents of that file, so the value would send a local file; put name= before it"
	default:
		return "holds \"@\" or \"<\" right after its name=, and curl's -F reads name=@file or name=<file from that file, so the value would send a local file; give a value without them there"
	}
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

// optionReason says why a value is refused at p, and how the template
// could accept it. It names the program that reads the value, which is not
// always the command's first word (env -- python3 {s}: python3).
func optionReason(p shelltmpl.Placeholder, tool string) string {
	prog := p.Program
	const keep = "give a value that does not start with \"-\""
	if p.Role == shelltmpl.GluedOption {
		return fmt.Sprintf("is glued to an option in its word when %s before it is empty, and nothing proves %s reads it as that option's argument: %s could read its characters as more options; give %s a value, or leave {%s} empty "+
			"(to accept such values, the skill's template must use --name={%s}, the option's long name glued with =)",
			braces(p.Preceding), prog, prog, braces(p.Preceding), p.Name, p.Name)
	}
	why := fmt.Sprintf("starts with \"-\", so %s could read it as an option, not as the {%s} argument", prog, p.Name)
	if p.Role == shelltmpl.OptionArgument {
		why = fmt.Sprintf("starts with \"-\", and nothing proves %s takes {%s} as its argument (a flag such as rg --smart-case takes none), so %s could read the value as an option", p.Option, p.Name, prog)
	}
	if p.Void != "" {
		why += " (" + p.Void + ")"
	}
	return why + "; " + keep + " (to accept such values, the skill's template must " + optionFix(p, tool) + ")"
}

// optionFix is how a template proves a value at p is no option.
func optionFix(p shelltmpl.Placeholder, tool string) string {
	spelled := p.Context == shelltmpl.Unquoted && len(p.Preceding) == 0
	dashes := ""
	if spelled {
		dashes = fmt.Sprintf(" (%s-- %s)", tool[:p.Start], tool[p.Start:])
	}
	if !p.Known {
		named := "--name={" + p.Name + "} (the option's long name glued with =)"
		if strings.HasPrefix(p.Option, "--") {
			named = p.Option + "={" + p.Name + "}"
		}
		return fmt.Sprintf("pass it as %s: agent3md does not know %s, so no -- in the template proves the value is no option of the program that reads it", named, p.Program)
	}
	if p.Role == shelltmpl.OptionArgument {
		long := "--name={" + p.Name + "} (the option's long name glued with =)"
		if strings.HasPrefix(p.Option, "--") {
			long = p.Option + "={" + p.Name + "}"
			if before := strings.TrimRight(tool[:p.Start], " \t"); spelled && strings.HasSuffix(before, " "+p.Option) {
				long += " (" + before + "=" + tool[p.Start:] + ")"
			}
		}
		return fmt.Sprintf("use %s if %s takes an argument, or put -- before {%s} if it takes none%s", long, p.Option, p.Name, dashes)
	}
	return fmt.Sprintf("put a -- of %s right before {%s}%s, or use --name={%s} if it is an option's value", p.Program, p.Name, dashes, p.Name)
}

// braces writes names as "{a}, {b}".
func braces(names []string) string {
	return "{" + strings.Join(names, "}, {") + "}"
}

// Cmd returns the process that runs a ready fill, as agent3md run --exec
// runs it: a Plain template's words directly as argv, anything else
// through sh -c; nil when the fill is not ready.
func (f *Fill) Cmd() *exec.Cmd {
	if !f.Ready || !f.HasTool {
		return nil
	}
	if argv, ok := f.Argv(); ok {
		return exec.Command(argv[0], argv[1:]...)
	}
	return exec.Command("sh", "-c", f.Command)
}

// Argv returns the filled command as the arguments to run without a shell:
// the template's words, each value one argument, unquoted, taken from the
// template's syntax tree (no shell reading of Command). ok is false unless
// the fill is ready and its template is Plain (no shell syntax); Command
// then has to run through sh -c.
func (f *Fill) Argv() (argv []string, ok bool) {
	if !f.Ready || !f.Plain || len(f.argv) == 0 {
		return nil, false
	}
	return slices.Clone(f.argv), true
}
