// Package shelltmpl analyses agent3md command templates — shell command
// lines holding {name} placeholders — with a real shell parser
// (mvdan.cc/sh/v3/syntax), to tell where a value substituted for a
// placeholder would land.
//
// A value is quoted as one POSIX single-quoted string. That keeps it
// literal only where the shell reads the placeholder at the top level of a
// word: in unquoted text, in a '…' string, or in a "…" string with no
// expansion in it. Inside $(…), `…`, ${…}, $((…)), a here-document, a
// comment or a word that also expands something, the shell re-reads the
// quotes or never sees them, so such templates are refused (the validator's
// tool-quote rule). For each accepted placeholder the analysis also works
// out which program reads the value — walking through wrappers (env, nice,
// sudo, …) and interpreters with the specs of programs_table.go — and which
// role the value plays for it (a positional argument, an option's argument,
// a --name= value, after that program's own "--", …), so that a caller can
// refuse a value that could turn into an option. A placeholder where the
// value would name the program to run or be code is refused with the
// template. Only what the template and those specs prove counts: a "--" of
// a program the specs do not cover proves nothing (docs/run-guard.md §2).
//
// The analysis is also what a filler writes from: each placeholder's byte
// span and quoting, its word's span (what leaving an optional input out
// removes), the option word before it, and a plain template's argument
// spans, all read from the one syntax tree, so that nothing reads the
// template's shell a second time. Constructs bash and dash read apart
// ($'…', &>, brace expansion) refuse a template with a placeholder
// (dialect.go), and a value starting with "@" is marked where its program
// reads it as a file (atfile.go).
package shelltmpl

import (
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Context is the quoting the shell applies where a placeholder sits.
type Context int

const (
	// Unquoted: plain word text, as in rg {pattern} or --flag={v}.
	Unquoted Context = iota
	// SingleQuoted: inside '…'.
	SingleQuoted
	// DoubleQuoted: inside a "…" string that expands nothing.
	DoubleQuoted
)

// Role is what a placeholder's value is to the simple command it sits in.
type Role int

const (
	// Embedded: literal text that is not an option comes first in the
	// word (./{p}, name:{p}, "x {p}"), so the value never starts the
	// argument and the argument never starts with "-".
	Embedded Role = iota
	// Positional: the value starts an argument that no option claims.
	Positional
	// OptionArgument: the value starts the word right after an option word
	// (-e {p}, --flag {p}) that the guard does not know to take an
	// argument (rg --smart-case {p} has it take none), so the value may as
	// well be a positional argument.
	OptionArgument
	// AfterEndOfOptions: a "--" of the program that reads the value comes
	// earlier in the command, proven to end that program's options.
	AfterEndOfOptions
	// NotArgument: the value is an assignment's value (X={p} cmd) or a
	// redirection's target (> {p}), never parsed as an option.
	NotArgument
	// OptionValue: the value follows "--name=" in its word (--name={p}),
	// so it is that long option's value: getopt_long refuses "=value" on
	// an option that takes none.
	OptionValue
	// GluedOption: the value is glued to an option word's text behind
	// other placeholders ({a}-e{p}): with them all empty the word is an
	// option, and whether the value is its argument or more options
	// depends on the option, which nothing proves.
	GluedOption
	// ProvenArgument: the value is, or ends, the argument of an option the
	// reading program is known to give one (grep -e {p}, grep -e{p},
	// curl --max-time {t}): the program never reads it as an option.
	ProvenArgument
)

// Placeholder is one {name} occurrence the shell reads as quotable text.
type Placeholder struct {
	Name       string
	Start, End int // byte range of {name} in the template
	Context    Context
	Role       Role
	// Preceding names the placeholders that come before this one in its
	// word with no literal text between (as {a} before {b} in {a}{b}).
	// For a Positional or OptionArgument role the value starts the
	// argument only when each of them is empty; for a GluedOption role,
	// the word starts with the template's option text only when each of
	// them is empty.
	Preceding []string
	// Option is, for the OptionArgument and ProvenArgument roles, the
	// option word before the placeholder's word (as the command sees it).
	Option string
	// Command is the literal first word of the simple command holding the
	// placeholder ("" when that word is not literal or there is none).
	Command string
	// Program names the program that reads the value: "python3" in
	// "env -- python3 {s}", "git blame", "the script x.py that python3
	// runs"; "" when the value is no command argument.
	Program string
	// Known: the guard has a spec for Program (docs/run-guard.md §2), so
	// a "--" of Program's own before the value would prove it no option.
	Known bool
	// Void says why a "--" before the placeholder in its command does not
	// end Program's options ("" when there is none, or when it does).
	Void string
	// At says whether Program reads a value here as a file's name when it
	// starts with "@" (a response file of gcc, javac, ld; curl's -d @file),
	// so that a caller refuses such a value as it refuses one starting
	// with "-" (atfile.go).
	At AtRule
	// Word is what leaving the placeholder's input out removes (the
	// optional-input rule, docs/format.md §9): the command argument,
	// assignment or redirection holding it, read from the syntax tree,
	// with the blanks between it and the item before it (for a first
	// item, the blanks after it). Placeholders of one word share it.
	Word Span
	// Whole: the placeholder is its word's whole text ({p}; not "{p}",
	// x{p} or {a}{p}).
	Whole bool
	// OptionWord is, for a Whole command argument, the word right before
	// it (with its blanks, as Word) when that word is an option that may
	// take it: literal text starting with "-" that is not "-" or "--".
	// The zero Span when there is none.
	OptionWord Span
}

// Span is the byte range [Start, End) of a template.
type Span struct{ Start, End int }

// Problem says why one placeholder occurrence cannot be filled safely, or
// why the template as a whole cannot be analysed (Name "" then).
type Problem struct {
	Name   string
	Start  int // byte offset of {name} in the template; 0 for the template
	Reason string
}

// Error formats the problem as a sentence naming the placeholder.
func (p Problem) Error() string {
	if p.Name == "" {
		return p.Reason
	}
	return fmt.Sprintf("{%s} (byte %d): %s", p.Name, p.Start+1, p.Reason)
}

// Template is the analysis of one command template.
type Template struct {
	// Placeholders are the occurrences that are safe to fill, in template
	// order. Occurrences whose brace the template escapes (\{name}) are
	// literal text and are listed nowhere.
	Placeholders []Placeholder
	// Problems are the occurrences that are not safe to fill, in template
	// order; a template with any problem must not be filled.
	Problems []Problem
	// Plain is true when the template is one simple command made only of
	// plain words (letters, digits, - _ . / : , = @ % + ^) and
	// placeholders: no quotes, operators, redirections, globs or
	// expansions. Such a command can run without a shell, as argv.
	Plain bool
	// Args are, for a Plain template, the spans of its words, command
	// name first: filling each with its values, unquoted, gives the argv.
	Args []Span
}

// Match is one {name} placeholder at [Start, End) of a template.
type Match struct {
	Name       string
	Start, End int
}

// Find returns the {name} placeholders of s, left to right; name is
// [A-Za-z_][A-Za-z0-9_]*, as the agent3md/1 format defines it.
func Find(s string) []Match {
	var out []Match
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		if n := at(s, i); n > 0 {
			out = append(out, Match{s[i+1 : i+n-1], i, i + n})
			i += n - 1
		}
	}
	return out
}

// at returns the length of the {name} placeholder starting at s[i], or 0.
func at(s string, i int) int {
	j := i + 1
	if j >= len(s) || !(s[j] == '_' || isLetter(s[j])) {
		return 0
	}
	for j++; j < len(s) && (s[j] == '_' || isLetter(s[j]) || isDigit(s[j])); j++ {
	}
	if j < len(s) && s[j] == '}' {
		return j + 1 - i
	}
	return 0
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// Analyze parses tmpl as a shell command line and locates each of its
// placeholders. It never fails: a template with placeholders that does not
// parse gets one Problem saying so (one without any has no problems: it is
// run as written).
func Analyze(tmpl string) *Template {
	t := &Template{}
	if strings.ContainsAny(tmpl, "\r\x00") && strings.IndexByte(tmpl, '{') >= 0 {
		t.Problems = append(t.Problems, Problem{Reason: "the command holds a carriage return or NUL byte, which shells read differently; remove it"})
		return t
	}
	ms := Find(tmpl)
	if fast, ok := analyzeSimple(tmpl, ms); ok {
		return fast
	}
	return analyzeParsed(tmpl, ms)
}

// Parse parses src as a shell command line, with the one parser
// configuration agent3md reads templates and filled commands with (bash
// dialect, which also reads every POSIX sh construct).
func Parse(src string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parsers.Put(p)
	return f, err
}

// analyzeParsed is Analyze through the shell parser.
func analyzeParsed(tmpl string, ms []Match) *Template {
	t := &Template{}
	src, sent := withSentinels(tmpl, ms)
	f, err := Parse(src)
	if err != nil {
		if len(ms) == 0 {
			return t // nothing is substituted, so nothing can escape
		}
		msg := err.Error()
		if len(ms) > 0 {
			// Positions in the error refer to the text with sentinels.
			msg = strings.TrimLeft(strings.TrimLeft(msg, "0123456789"), ":")
			msg = strings.TrimLeft(strings.TrimLeft(msg, "0123456789"), ":")
			msg = strings.TrimSpace(msg)
		}
		t.Problems = append(t.Problems, Problem{Reason: "the command is not valid shell syntax: " + msg})
		return t
	}
	w := &walker{t: t, tmpl: tmpl, ms: ms, sent: sent, found: make([]bool, len(ms)), offs: sentinelOffsets(ms, sent)}
	w.walk(f)
	for i, m := range ms {
		if !w.found[i] {
			w.problem(i, reasonUnreached(tmpl, m))
		}
	}
	sortProblems(t.Problems)
	if t.Plain = len(t.Problems) == 0 && plain(f, sent); t.Plain {
		for _, a := range f.Stmts[0].Cmd.(*syntax.CallExpr).Args {
			t.Args = append(t.Args, Span{w.offset(a.Pos()), w.offset(a.End())})
		}
	}
	return t
}

// parsers keeps parsers for reuse: a validator analyses one template per
// skill, and a fresh parser costs more than the parse of a short line.
// The trees a parser returns stay valid after it parses again.
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// reasonUnreached explains an occurrence the walk never met as a word: its
// sentinel landed in a comment, or a $ before it made it part of a
// parameter name.
func reasonUnreached(tmpl string, m Match) string {
	if m.Start > 0 && tmpl[m.Start-1] == '$' {
		return "${" + m.Name + "} is a shell parameter expansion, so the shell would read the value's quotes as text; write the placeholder as a plain word"
	}
	return "it is not part of a command word (it sits in a comment, or the shell joins it with the text around it into something else); the value could end the comment or change the command"
}

func sortProblems(ps []Problem) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Start < ps[j-1].Start; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// sentinelOffsets returns, for each sentinel, where it starts in the text
// withSentinels made and how much longer it is than its placeholder.
func sentinelOffsets(ms []Match, sent []string) []sentinelShift {
	out := make([]sentinelShift, len(ms))
	shift := 0
	for i, m := range ms {
		out[i] = sentinelShift{at: m.Start + shift, grow: len(sent[i]) - (m.End - m.Start)}
		shift += out[i].grow
	}
	return out
}

// sentinelShift is where one sentinel starts in the parsed text and how
// many bytes longer than its placeholder it is.
type sentinelShift struct{ at, grow int }

// withSentinels replaces each placeholder of tmpl with a word made of
// letters and digits that appears nowhere else in the text, so the parser
// sees an ordinary literal where a value will go. The sentinel starts with
// a digit so it is never read as a variable name or an assignment.
func withSentinels(tmpl string, ms []Match) (string, []string) {
	prefix := "9q3mdph"
	for strings.Contains(tmpl, prefix) {
		prefix += "q"
	}
	sent := make([]string, len(ms))
	var b strings.Builder
	last := 0
	for i, m := range ms {
		sent[i] = fmt.Sprintf("%sx%dx", prefix, i)
		b.WriteString(tmpl[last:m.Start])
		b.WriteString(sent[i])
		last = m.End
	}
	b.WriteString(tmpl[last:])
	return b.String(), sent
}
