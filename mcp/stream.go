package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// The stdio transport: newline-delimited lines in, lines out. It knows
// nothing of JSON-RPC.

// DefaultMaxLineBytes bounds one incoming stdio line (terminator excluded)
// when Options.MaxLineBytes is zero.
const DefaultMaxLineBytes = 4 << 20

// errLineTooLong is what readLine reports for a line over the bound; the
// rest of that line has already been discarded.
var errLineTooLong = errors.New("line too long")

// lineReader reads bounded lines from stdin with ReadSlice, so a line is
// copied at most once and an oversized one is skipped without being kept.
type lineReader struct {
	r       *bufio.Reader
	maxLine int
	buf     []byte // the line being assembled, at most maxLine+2 bytes
}

func newLineReader(in io.Reader, maxLine int) *lineReader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	return &lineReader{r: bufio.NewReaderSize(in, 64<<10), maxLine: maxLine}
}

// readLine returns the next line without its "\n" or "\r\n"; the slice is
// valid until the next call. A line over maxLine bytes is consumed to its
// end without being kept and reported as errLineTooLong (an unterminated
// oversized tail too, then io.EOF comes on the next call). At end of input
// it returns the unterminated tail (if any) with io.EOF.
func (l *lineReader) readLine() ([]byte, error) {
	l.buf = l.buf[:0]
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !tooLong {
			if len(l.buf)+len(chunk) > l.maxLine+2 {
				tooLong = true
				l.buf = l.buf[:0]
			} else if len(l.buf) == 0 && err == nil {
				// The whole line sits in the reader's buffer: no copy.
				return trimEOL(chunk, l.maxLine)
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if !tooLong {
			line, lerr := trimEOL(l.buf, l.maxLine)
			if lerr != nil {
				return nil, lerr
			}
			return line, err
		}
		return nil, errLineTooLong
	}
}

// trimEOL drops the line terminator and checks the bound.
func trimEOL(line []byte, max int) ([]byte, error) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > max {
		return nil, errLineTooLong
	}
	return line, nil
}

// tooLongLine is the -32700 answer to an oversized line.
func tooLongLine(max int) []byte {
	return errorLine(nil, codeParseError, fmt.Sprintf(
		"Parse error: line longer than %d bytes was discarded (raise the limit with --max-message-bytes)", max), nil)
}
