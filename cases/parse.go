package cases

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// None is what a TSV case writes, in place of a skill name, for a request
// no skill should match.
const None = "-"

// Case is one hand-written request and the skill it should reach.
type Case struct {
	// Line is the 1-based line of the case in its file.
	Line int `json:"line"`
	// Request is the text routed, in the user's words.
	Request string `json:"request"`
	// Expect is the skill that should come first; "" when no skill should
	// match at all.
	Expect string `json:"expect,omitempty"`
}

// Format is the grammar of a cases file: TSV or JSONL, chosen by the
// file's extension (".jsonl" is JSONL, anything else TSV).
type Format string

// The two grammars.
const (
	TSV   Format = "tsv"
	JSONL Format = "jsonl"
)

// FormatOf returns the grammar a file of that name is read with.
func FormatOf(name string) Format {
	if strings.EqualFold(filepath.Ext(name), ".jsonl") {
		return JSONL
	}
	return TSV
}

// Limits bound what a cases file may hold. A zero field takes its default.
type Limits struct {
	// MaxCases is the most cases a file may hold (default DefaultMaxCases).
	MaxCases int
	// MaxLineBytes is the longest line (default DefaultMaxLineBytes).
	MaxLineBytes int
}

// Defaults of Limits.
const (
	DefaultMaxCases     = 100_000
	DefaultMaxLineBytes = 64 << 10
)

func (l Limits) withDefaults() Limits {
	if l.MaxCases <= 0 {
		l.MaxCases = DefaultMaxCases
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	return l
}

// Error is a cases file that cannot be read as written: where, what, and
// how to fix it.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// ReadFile reads the cases file at path, in the grammar its name calls for.
func ReadFile(path string, lim Limits) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading cases: %w", err)
	}
	defer f.Close()
	return Read(f, path, FormatOf(path), lim)
}

// Read reads cases from r in format ft; name is the file named in errors.
// Blank lines and lines whose first non-blank character is '#' are
// skipped in both grammars. A file with no case is an error: an empty
// test would pass whatever the skills say.
func Read(r io.Reader, name string, ft Format, lim Limits) ([]Case, error) {
	lim = lim.withDefaults()
	sc := bufio.NewScanner(r)
	// The token bound is the larger of the limit and the buffer's capacity.
	sc.Buffer(make([]byte, 0, min(4096, lim.MaxLineBytes+1)), lim.MaxLineBytes+1) // +1: the newline
	var out []Case
	line := 0
	for sc.Scan() {
		line++
		l := sc.Bytes()
		if line == 1 {
			l = bytes.TrimPrefix(l, []byte("\uFEFF"))
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if !utf8.Valid(l) {
			return nil, &Error{name, line, "the line is not valid UTF-8: save the file as UTF-8"}
		}
		if len(out) == lim.MaxCases {
			return nil, &Error{name, line, fmt.Sprintf("more than %d cases: split the file, or raise --max-cases", lim.MaxCases)}
		}
		var c Case
		var msg string
		if ft == JSONL {
			c, msg = jsonCase(t)
		} else {
			c, msg = tsvCase(l)
		}
		if msg != "" {
			return nil, &Error{name, line, msg}
		}
		c.Line = line
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &Error{name, line + 1, fmt.Sprintf("line longer than %d bytes: a request is a sentence or two; shorten it, or raise --max-case-bytes", lim.MaxLineBytes)}
		}
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, &Error{name, 0, "no cases: write one per line, a request, a tab and the skill it should reach (or - for none)"}
	}
	return out, nil
}

// tsvCase reads "request<TAB>skill": exactly one tab, both sides trimmed,
// "-" for no skill.
func tsvCase(l []byte) (Case, string) {
	req, want, ok := bytes.Cut(l, []byte("\t"))
	if !ok {
		if t := bytes.TrimSpace(l); t[0] == '{' {
			return Case{}, "the line looks like JSON, but the file is read as TSV: name it .jsonl, or write 'request<TAB>skill'"
		}
		return Case{}, "no tab between the request and the skill: write 'request<TAB>skill' (- for no skill); an editor may have turned the tab into spaces"
	}
	if bytes.IndexByte(want, '\t') >= 0 {
		return Case{}, "more than one tab: a case is 'request<TAB>skill', and a request holds no tab"
	}
	c := Case{Request: string(bytes.TrimSpace(req)), Expect: string(bytes.TrimSpace(want))}
	if c.Request == "" {
		return Case{}, "the request before the tab is empty: write the words a user would type"
	}
	switch c.Expect {
	case "":
		return Case{}, "no skill after the tab: name the skill this request should reach, or write - for none"
	case None:
		c.Expect = ""
	}
	return c, ""
}

// jsonLine is one JSONL case: {"request": "…", "expect": "skill"}, with
// "expect" null, "-" or absent for no skill.
type jsonLine struct {
	Request *string `json:"request"`
	Expect  *string `json:"expect"`
}

func jsonCase(t []byte) (Case, string) {
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.DisallowUnknownFields()
	var j jsonLine
	if err := dec.Decode(&j); err != nil {
		return Case{}, fmt.Sprintf("not a JSON case (%v): write {\"request\": \"…\", \"expect\": \"skill\"}, with \"expect\": null for no skill", err)
	}
	if dec.More() {
		return Case{}, "more than one JSON value on the line: one case per line"
	}
	if j.Request == nil || strings.TrimSpace(*j.Request) == "" {
		return Case{}, "the case has no \"request\": add \"request\": \"the words a user would type\""
	}
	c := Case{Request: strings.TrimSpace(*j.Request)}
	if j.Expect != nil && *j.Expect != None {
		c.Expect = strings.TrimSpace(*j.Expect)
		if c.Expect == "" {
			return Case{}, "\"expect\" is empty: name the skill, or write null for none"
		}
	}
	return c, ""
}
