package agentfile

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestParseErrorText(t *testing.T) {
	le := &LimitError{Limit: "line length", Flag: "--max-line-bytes", Max: 10}
	for _, tt := range []struct {
		err  *ParseError
		want string
	}{
		{&ParseError{Name: MissingFrontmatter, Msg: "empty"}, "<input>: missingFrontmatter: empty"},
		{&ParseError{File: "a.3md", Line: 3, Name: DuplicatePlane, Msg: "m"}, "a.3md:3: duplicatePlane: m"},
		{&ParseError{File: "a.3md", Line: 3, Col: 7, Name: InvalidPlaneDirective, Msg: "m"}, "a.3md:3:7: invalidPlaneDirective: m"},
		{&ParseError{File: "a.3md", Col: 7, Name: InvalidFrontmatter, Msg: "m"}, "a.3md: invalidFrontmatter: m"},
		{&ParseError{Line: 2, Name: LimitExceeded, Msg: le.Error(), Err: le}, "<input>:2: limitExceeded: line length exceeds the limit of 10 (raise it with --max-line-bytes)"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	var nilCause ParseError
	_ = nilCause.Error() // a zero ParseError still formats
}

func TestErrorChains(t *testing.T) {
	le := &LimitError{Limit: "number of planes", Flag: "--max-planes", Max: 1}
	pe := &ParseError{Line: 9, Name: LimitExceeded, Msg: le.Error(), Err: le}
	wrapped := fmt.Errorf("loading agent: %w", pe)
	if !errors.Is(wrapped, ErrLimit) {
		t.Error("a wrapped limit error does not match ErrLimit")
	}
	var got *LimitError
	if !errors.As(wrapped, &got) || got.Flag != "--max-planes" {
		t.Errorf("LimitError lost through wrapping: %v", got)
	}
	rf := &ParseError{Name: ReadFailed, Msg: "x", Err: io.ErrUnexpectedEOF}
	if errors.Is(rf, ErrLimit) || !errors.Is(rf, io.ErrUnexpectedEOF) {
		t.Error("a read failure must wrap the reader's error and not ErrLimit")
	}
}

// TestParseFailureWrapped: a ParseError wrapped by a caller still gives the
// parse finding its line and canonical name.
func TestParseFailureWrapped(t *testing.T) {
	pe := &ParseError{File: "a.3md", Line: 4, Name: MissingPlanePosition, Msg: "add z"}
	for _, err := range []error{pe, fmt.Errorf("open a.3md: %w", pe)} {
		r := ParseFailure(err)
		if len(r.Errors) != 1 || len(r.Warnings) != 0 {
			t.Fatalf("report %+v", r)
		}
		f := r.Errors[0]
		if f.Rule != RuleParse || f.Line != 4 || f.Message != "missingPlanePosition: add z" {
			t.Errorf("%v: finding %+v", err, f)
		}
	}
	if f := ParseFailure(errors.New("boom")).Errors[0]; f.Rule != RuleParse || f.Message != "boom" || f.Line != 0 {
		t.Errorf("plain error: finding %+v", f)
	}
}
