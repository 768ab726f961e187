package agentfile

import (
	"errors"
	"fmt"
)

// Canonical error names of the 3md base format (DESIGN §2). They are the
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
)

// ErrLimit is wrapped by every error caused by one of the Limits.
var ErrLimit = errors.New("limit exceeded")

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
