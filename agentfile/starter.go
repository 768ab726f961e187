package agentfile

import (
	"bytes"
	"fmt"
	"strings"
	"text/template"
	"unicode"
	"unicode/utf8"
)

// starter is the agent Starter writes: valid under every agent3md/1 rule
// with no warnings, and showing each feature once (typed inputs, a command
// template, a guidance-only skill, a dependency link).
var starter = template.Must(template.New("agent").Parse(`---
3md: 1.0
title: {{.Title}}
agent: {{.Name}}
model: unknown
persona: careful and brief; confirms before anything destructive
version: 0.1.0
tools: rg
---
@plane z=0 label="{{.Name}}" kind=identity
# {{.Title}}

You are {{.Title}}. Route each request to the one skill whose triggers fit,
load only that skill (and the skills it links to), fill its inputs, and show
the command before running it. Ask when a required input is missing.

@plane z=1 label="search-code" kind=skill triggers="search code, find usages, grep for, where is" inputs="pattern:string, path:string?" tool="rg --line-number --regexp={pattern} -- {path}"
# Search code

Find where a pattern occurs in the repository and show each hit with its line
number.

1. Start narrow: search the directory the user named, else the repository root.
2. Show at most twenty hits; say how many more there were.
3. Summarise with [[z=2|explain-results]] when the user asked a question.

@plane z=2 label="explain-results" kind=skill triggers="explain, summarise results, what does this mean"
# Explain results

Turn a list of hits into a short answer: which files matter, what each one
does there, and what to read next.
`))

// starterRule is what a refused name is told to be.
const starterRule = "use letters, digits, spaces, - or _; no quotes, colons, backslashes or control characters"

// MaxStarterNameChars bounds the agent name Starter accepts: a name is a
// title and a file name, and one longer than this is a mistake (a pasted
// paragraph), not a name.
const MaxStarterNameChars = 100

// Starter returns a small agent named name, to start from (what
// `agent3md new` writes): an identity plane, a command-backed skill with
// typed inputs and a guidance-only skill it links to, with the catalog it
// scans to. The title is name with its first letter in upper case.
//
// A name the agent cannot carry as written is refused with an error that
// says why: checkStarterName's rules first, then what Parse and Validate
// find in the agent written with it (a name such as "|" reads as a YAML
// block scalar in the frontmatter). The agent's other text is fixed and
// clean, so whatever they find is the name's doing.
func Starter(name string) ([]byte, *Catalog, error) {
	if err := checkStarterName(name); err != nil {
		return nil, nil, err
	}
	var buf bytes.Buffer
	if err := starter.Execute(&buf, map[string]string{"Name": name, "Title": titleOf(name)}); err != nil {
		return nil, nil, err
	}
	cat, err := Parse(bytes.NewReader(buf.Bytes()), &Options{File: name + ".3md"})
	if err != nil {
		return nil, nil, fmt.Errorf("agent name %q cannot be written into an agent file as it is (%v); %s", name, err, starterRule)
	}
	r := Validate(cat)
	if f := append(r.Errors, r.Warnings...); len(f) > 0 {
		return nil, nil, fmt.Errorf("agent name %q cannot be written into an agent file as it is ([%s] %s); %s", name, f[0].Rule, f[0].Message, starterRule)
	}
	return buf.Bytes(), cat, nil
}

// checkStarterName refuses a name the starter cannot carry as written:
// the name sits in the frontmatter (where a colon starts a value and a
// quoted value loses its quotes) and in a quoted label="…" (where a
// backslash escapes and a quote closes), and it names the file. Anything
// else would come out of Starter's self-check, or silently as another
// name.
func checkStarterName(name string) error {
	const rule = starterRule
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("agent name is empty; %s", rule)
	case strings.TrimSpace(name) != name:
		// The frontmatter would trim the title, and the label keep the
		// spaces: two names for one agent.
		return fmt.Errorf("agent name %q starts or ends with white space; remove it", name)
	case !utf8.ValidString(name):
		return fmt.Errorf("agent name %q is not valid UTF-8; %s", name, rule)
	case utf8.RuneCountInString(name) > MaxStarterNameChars:
		return fmt.Errorf("agent name is %d characters long, over the limit of %d; choose a shorter one", utf8.RuneCountInString(name), MaxStarterNameChars)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("agent name %q holds the control character U+%04X; %s", name, r, rule)
		}
		if strings.ContainsRune("\"'\\:", r) {
			return fmt.Errorf("agent name %q holds the character %c; %s", name, r, rule)
		}
	}
	return nil
}

// titleOf is name with its first letter in upper case. It works on the
// first rune, not the first byte: upper-casing half of a multi-byte letter
// wrote a name that was not UTF-8.
func titleOf(name string) string {
	r, size := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[size:]
}
