package agentfile

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/textclip"
)

// Canonical error names of the 3md base format (docs/format.md §2, §3 and §14). They are the
// Name of a ParseError and are what conformance vectors compare against.
const (
	MissingFrontmatter    = "missingFrontmatter"
	InvalidFrontmatter    = "invalidFrontmatter"
	MissingVersion        = "missingVersion"
	InvalidPlaneDirective = "invalidPlaneDirective"
	MissingPlanePosition  = "missingPlanePosition"
	DuplicatePlane        = "duplicatePlane"
	// LimitExceeded names a ParseError caused by a bound of Limits; it is not
	// a format error but a refusal to read further.
	LimitExceeded = "limitExceeded"
	// ReadFailed names a ParseError caused by the reader itself.
	ReadFailed = "readFailed"
	// DuplicateSkill names a ParseError refusing to open a catalog as an
	// agent because two skills answer to one name (see Agent.NameClash).
	// The base format allows it; serving it would not be well defined.
	DuplicateSkill = "duplicateSkill"
	// InvalidSkillName names a ParseError refusing to open a catalog as an
	// agent because a skill's name is not valid UTF-8 (see
	// Agent.BadName): no client could ask for it by that name.
	InvalidSkillName = "invalidSkillName"
)

// ErrLimit is wrapped by every error caused by one of the Limits.
var ErrLimit = errors.New("limit exceeded")

// ErrDuplicateSkill is wrapped by the DuplicateSkill error.
var ErrDuplicateSkill = errors.New("two skills share a name")

// ErrInvalidSkillName is wrapped by the InvalidSkillName error.
var ErrInvalidSkillName = errors.New("a skill name is not valid UTF-8")

// ParseError is a positioned parse failure. Name is one of the canonical
// names above; Line is 1-based (0 when the error concerns the whole input);
// Offset is the byte offset of the line's start.
type ParseError struct {
	File   string
	Line   int
	Col    int
	Offset int64
	Name   string
	Msg    string
	Err    error
}

func (e *ParseError) Error() string {
	where := e.File
	if where == "" {
		where = "<input>"
	}
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, e.Line)
		if e.Col > 0 {
			where = fmt.Sprintf("%s:%d", where, e.Col)
		}
	}
	return fmt.Sprintf("%s: %s: %s", where, e.Name, e.Msg)
}

// Unwrap returns the underlying cause (ErrLimit wrapped in a *LimitError for
// bounds, the reader's error for I/O failures).
func (e *ParseError) Unwrap() error { return e.Err }

// LimitError says which bound was hit and how to raise it.
type LimitError struct {
	// Limit is the bound's name ("line length"), Flag the CLI flag that
	// raises it ("--max-line-bytes"), Max its value in force.
	Limit string
	Flag  string
	Max   int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s exceeds the limit of %d (raise it with %s)", e.Limit, e.Max, e.Flag)
}

// Unwrap makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Unwrap() error { return ErrLimit }

// quoteMax is how many bytes of a value an error message quotes: enough to
// recognise it, never a 60 KB attribute echoed whole.
const quoteMax = 60

// quoted returns v Go-quoted for a message. A value longer than quoteMax
// is cut at a rune boundary, and the cut says how long the value was.
func quoted[T string | []byte](v T) string {
	if len(v) <= quoteMax {
		return fmt.Sprintf("%q", v)
	}
	head := string(v[:min(len(v), quoteMax+utf8.UTFMax)])
	return fmt.Sprintf("%q… (%d bytes)", head[:textclip.Cut(head, quoteMax)], len(v))
}

// bare is quoted without the quotes, for names that read better bare
// (an attribute key in a limit message).
func bare(s string) string {
	if len(s) <= quoteMax {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:textclip.Cut(s, quoteMax)], len(s))
}
