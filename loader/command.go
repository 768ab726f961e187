package loader

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/internal/shelltmpl"
)

// Fill is the result of filling a skill's command template.
//
// Optional inputs without a value: a demanding caller wants a command it can
// run as soon as every required input has a value, so an optional input that
// got no value is dropped from Command together with the shell word that
// holds its placeholder and, when the placeholder is that whole word, the
// option word right before it ("--limit {limit}" disappears whole; "-n" too;
// "--" does not). A word that mixes it with other text or placeholders
// keeps the rest ("{host}:{port}" becomes "'example.org':"). Omitted lists
// what was dropped. Required inputs without a value, and placeholders that
// name no declared input, stay visible as {name}, exactly as the spec's
// command() leaves them (ExpandTemplate is that function verbatim).
type Fill struct {
	Skill string `json:"skill"`
	// Command is the template with every valued placeholder replaced by its
	// POSIX single-quoted value and unvalued optional inputs dropped (see
	// above); "" when the skill has no tool.
	Command string `json:"command,omitempty"`
	HasTool bool   `json:"hasTool"`
	// Cost is the skill's cost= tag ("" when it has none). A caller about to
	// run the command should have a person confirm a costly one.
	Cost string `json:"cost,omitempty"`
	// Missing lists required inputs with no value, in declaration order.
	Missing []string `json:"missing"`
	// Invalid lists values that break their input's type (or hold a NUL),
	// and values starting with "-" where the command would read them as an
	// option (see refuseOptions), in declaration order, then undeclared
	// names in sorted order. An invalid value is not put into Command: its
	// placeholder stays visible.
	Invalid []InputProblem `json:"invalid"`
	// Unknown lists value names that are not declared inputs (sorted). They
	// do not block Ready, but a caller should say they were ignored.
	Unknown []string `json:"unknown"`
	// Omitted lists optional inputs without a value whose placeholders were
	// dropped from Command, in declaration order.
	Omitted []string `json:"omitted"`
	// Unbound lists placeholders of the template that are not declared
	// inputs and got no value (a validator tool-input error), in template
	// order, each once.
	Unbound []string `json:"unbound"`
	// Unsafe lists the template's placeholders that sit where a quoted
	// value would not stay literal text — inside $(…), `…`, ${…}, a
	// here-document, a comment, or a word that also expands something —
	// or where the value would run, and the template's constructs bash
	// and dash read apart ($'…', &>, {a,b}; Placeholder "") (the
	// validator's tool-quote rule). When it is not empty, no value is
	// substituted at all: Command is the template as written.
	Unsafe []TemplateProblem `json:"unsafe"`
	// Plain is true when the template is one simple command of plain words
	// and placeholders, with no shell syntax: it can run as argv, without
	// a shell (see Argv).
	Plain bool `json:"plain"`
	// Ready is true when there is a command and nothing is missing,
	// invalid, unbound or unsafe: Command can be run as it is.
	Ready bool `json:"ready"`
	// argv is, for a Plain fill, its arguments (see Argv).
	argv []string
}

// TemplateProblem says why one placeholder of a command template cannot
// be filled safely. Placeholder is "" when the whole template is at fault
// (it is not valid shell syntax).
type TemplateProblem struct {
	Placeholder string `json:"placeholder"`
	Reason      string `json:"reason"`
}

// InputProblem says why one value cannot fill its input.
type InputProblem struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// Problems says, one phrase each, why a fill with a command is not
// Ready for its inputs: the required inputs missing (and the NAME=… to add
// for them), each invalid value with its input's type, and the template's
// placeholders no input declares. None for a ready fill; an unsafe
// template is said by Unsafe, not here.
func (f *Fill) Problems() []string {
	var parts []string
	if len(f.Missing) > 0 {
		args := make([]string, len(f.Missing))
		for i, m := range f.Missing {
			args[i] = m + "=…"
		}
		parts = append(parts, fmt.Sprintf("missing required inputs: %s (add %s)", strings.Join(f.Missing, ", "), strings.Join(args, " ")))
	}
	for _, p := range f.Invalid {
		parts = append(parts, fmt.Sprintf("input %s (%s): %s", p.Name, p.Type, p.Reason))
	}
	if len(f.Unbound) > 0 {
		parts = append(parts, fmt.Sprintf("the template uses %s, which no input declares (a typo in the agent file? agent3md validate reports it as tool-input)",
			"{"+strings.Join(f.Unbound, "}, {")+"}"))
	}
	return parts
}

// UnsafeNote says, for a person, why nothing was substituted into an
// unsafe template: a line naming the skill, then one per problem with its
// placeholder. "" when the template is safe to fill.
func (f *Fill) UnsafeNote() string {
	if len(f.Unsafe) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "skill %s's command template is unsafe to fill, so nothing was substituted (agent3md validate reports it as tool-quote):\n", f.Skill)
	for _, p := range f.Unsafe {
		if p.Placeholder == "" {
			fmt.Fprintf(&b, "  %s\n", p.Reason)
		} else {
			fmt.Fprintf(&b, "  {%s}: %s\n", p.Placeholder, p.Reason)
		}
	}
	return b.String()
}

// IgnoredNote names the values given for inputs the skill does not
// declare (Unknown), and the inputs it does, so a misspelt name is plain
// to see; inputs are the skill's. "" when every value was used.
func (f *Fill) IgnoredNote(inputs []agentfile.Input) string {
	if len(f.Unknown) == 0 {
		return ""
	}
	u := slices.Sorted(slices.Values(f.Unknown))
	takes := make([]string, len(inputs))
	for i, in := range inputs {
		takes[i] = in.Name
		if in.Optional {
			takes[i] += "?"
		}
	}
	what := "no inputs"
	if len(takes) > 0 {
		what = strings.Join(takes, ", ")
	}
	return fmt.Sprintf("ignored values for undeclared inputs: %s; %s takes %s", strings.Join(u, ", "), f.Skill, what)
}

// Command fills the skill's command template with values (docs/format.md
// §9, with typed checks and the optional-input rule documented on
// Fill). It never runs anything. A skill whose tool attribute is absent or
// blank has no command: HasTool is false and Command is "".
func (a *Agent) Command(name string, values map[string]string) (*Fill, error) {
	st := a.current()
	i, err := st.lookup(name)
	if err != nil {
		return nil, err
	}
	return fill(&st.info.Skills[i], values), nil
}

func fill(s *agentfile.Skill, values map[string]string) *Fill {
	f := &Fill{
		Skill:   s.Name,
		HasTool: s.HasTool && strings.TrimSpace(s.Tool) != "",
		Cost:    s.Cost,
		Missing: []string{}, Invalid: []InputProblem{}, Unknown: []string{},
		Omitted: []string{}, Unbound: []string{}, Unsafe: []TemplateProblem{},
	}
	declared, good, optional := f.check(s.Inputs, values)
	if !f.HasTool {
		return f
	}
	t := shelltmpl.Analyze(s.Tool)
	for _, p := range t.Problems {
		f.Unsafe = append(f.Unsafe, TemplateProblem{Placeholder: p.Name, Reason: p.Reason})
	}
	if len(f.Unsafe) > 0 {
		f.Command = s.Tool
		f.unbound(s.Tool, declared, values)
		return f
	}
	// What runs is the template with the words of optional inputs that
	// got no value dropped: "flock {lock} {cmd}" without {lock} makes
	// {cmd} the lock file and the next word the program. So the guard
	// judges that command, not only the template as written, and the
	// values are filled into it, by its own analysis.
	run, rt := s.Tool, t
	var dropped map[string]bool
	if len(optional) > 0 {
		if run, dropped = render(s.Tool, t, map[string]string{}, optional); run != s.Tool {
			rt = shelltmpl.Analyze(run)
		}
	}
	probs := rt.Problems
	if rt != t && len(probs) == 0 {
		// Analyze does not judge a command without placeholders; what is
		// left after the drops must still parse (a && > {f} without {f}).
		if _, err := shelltmpl.Parse(run); err != nil {
			probs = []shelltmpl.Problem{{Reason: "the command is not valid shell syntax: " + err.Error()}}
		}
	}
	for _, p := range probs {
		reason := p.Reason
		if rt != t {
			reason += " (with " + omittedList(s.Inputs, optional) + " left out, the command is " + run + ")"
		}
		f.Unsafe = append(f.Unsafe, TemplateProblem{Placeholder: p.Name, Reason: reason})
	}
	if len(f.Unsafe) > 0 {
		f.Command = s.Tool
		f.unbound(s.Tool, declared, values)
		return f
	}
	f.Plain = rt.Plain
	f.refuseOptions(run, rt, s.Inputs, declared, good, optional)
	f.Command, _ = render(run, rt, good, nil)
	for _, in := range s.Inputs {
		if dropped[in.Name] {
			f.Omitted = append(f.Omitted, in.Name)
			delete(dropped, in.Name) // once, even for a repeated declaration
		}
	}
	f.unbound(s.Tool, declared, values)
	if f.Ready && f.Plain {
		f.argv = argv(run, rt, good)
	}
	return f
}

// omittedList names the optional inputs without a value, in declaration
// order: "{a}, {b}".
func omittedList(inputs []agentfile.Input, optional map[string]bool) string {
	var names []string
	seen := map[string]bool{}
	for _, in := range inputs {
		if optional[in.Name] && !seen[in.Name] {
			names = append(names, "{"+in.Name+"}")
			seen[in.Name] = true
		}
	}
	return strings.Join(names, ", ")
}

// unbound fills Unbound from the template's placeholders and sets Ready.
func (f *Fill) unbound(tool string, declared map[string]agentfile.Input, values map[string]string) {
	seen := map[string]bool{}
	for _, m := range shelltmpl.Find(tool) {
		n := m.Name
		if _, ok := declared[n]; !ok && !seen[n] {
			if _, ok := values[n]; !ok {
				f.Unbound = append(f.Unbound, n)
			}
			seen[n] = true
		}
	}
	f.Ready = len(f.Missing) == 0 && len(f.Invalid) == 0 && len(f.Unbound) == 0 && len(f.Unsafe) == 0
}

// check sorts values against the declared inputs, filling Missing, Invalid
// and Unknown. It returns the declared inputs by name (first declaration
// wins), the values fit to substitute, and the optional inputs without a
// value.
func (f *Fill) check(inputs []agentfile.Input, values map[string]string) (declared map[string]agentfile.Input, good map[string]string, optional map[string]bool) {
	declared = map[string]agentfile.Input{}
	good = map[string]string{}
	optional = map[string]bool{}
	for _, in := range inputs {
		if _, dup := declared[in.Name]; dup {
			continue
		}
		declared[in.Name] = in
		v, ok := values[in.Name]
		switch {
		case !ok && in.Optional:
			optional[in.Name] = true
		case !ok:
			f.Missing = append(f.Missing, in.Name)
		default:
			if reason := checkValue(in.Type, v); reason != "" {
				f.Invalid = append(f.Invalid, InputProblem{Name: in.Name, Type: in.Type, Reason: reason})
			} else {
				good[in.Name] = v
			}
		}
	}
	nDeclared := len(f.Invalid)
	for k, v := range values {
		if _, ok := declared[k]; ok {
			continue
		}
		f.Unknown = append(f.Unknown, k)
		if strings.IndexByte(v, 0) >= 0 {
			f.Invalid = append(f.Invalid, InputProblem{Name: k, Type: "undeclared", Reason: nulReason})
		} else {
			good[k] = v
		}
	}
	sort.Strings(f.Unknown)
	tail := f.Invalid[nDeclared:]
	sort.Slice(tail, func(i, j int) bool { return tail[i].Name < tail[j].Name })
	return declared, good, optional
}

const nulReason = "contains a NUL byte, which no command-line argument can carry"

// checkValue returns why v cannot be a value of type typ, or "".
func checkValue(typ, v string) string {
	if strings.IndexByte(v, 0) >= 0 {
		return nulReason
	}
	switch typ {
	case "number":
		if !isNumber(v) {
			return "not a finite decimal number (examples: 3, -0.5, 1e3)"
		}
	case "boolean":
		if v != "true" && v != "false" {
			return `not a boolean: use "true" or "false"`
		}
	case "object", "array":
		want := byte('{')
		if typ == "array" {
			want = '['
		}
		t := strings.TrimLeft(v, " \t\r\n")
		if !json.Valid([]byte(v)) || t == "" || t[0] != want {
			return "not a JSON " + typ
		}
	}
	return ""
}

// isNumber accepts an optional sign, digits with an optional fraction or a
// bare fraction, and an optional exponent — the 3md number grammar — whose
// value is finite.
func isNumber(v string) bool {
	i := 0
	if i < len(v) && (v[i] == '+' || v[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(v) && v[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '+' || v[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	if i != len(v) {
		return false
	}
	f, err := strconv.ParseFloat(v, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// Quote returns s as one POSIX shell word: single-quoted, with each single
// quote inside it closed, backslash-escaped and reopened (docs/format.md §9).
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ExpandTemplate is the spec's command(tool, values) exactly: each {name}
// placeholder with a value becomes its quoted value; every other
// placeholder stays visible. It does no type checks.
func ExpandTemplate(tool string, values map[string]string) string {
	var b strings.Builder
	last := 0
	for _, m := range shelltmpl.Find(tool) {
		if v, ok := values[m.Name]; ok {
			b.WriteString(tool[last:m.Start])
			b.WriteString(Quote(v))
			last = m.End
		}
	}
	b.WriteString(tool[last:])
	return b.String()
}
