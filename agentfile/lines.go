package agentfile

import (
	"bufio"
	"errors"
	"io"
)

// lineReader yields the input one line at a time with its byte offset,
// without ever buffering more than the line-length bound. Content excludes
// the terminator ("\n" or "\r\n"); a lone "\r" is ordinary content.
type lineReader struct {
	r       *bufio.Reader
	max     int   // longest line accepted (content bytes)
	maxSize int64 // largest input accepted
	off     int64 // offset of the next line's first byte
	start   int64 // offset of the line last returned or refused
	line    int   // 1-based number of the line last returned or refused
	long    []byte
}

// next returns the next line's content, its start offset and its raw length
// (content plus terminator). It returns io.EOF after the last line.
func (lr *lineReader) next() (content []byte, start int64, err error) {
	raw, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], raw...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(lr.long) > lr.max+2 {
				lr.begin()
				return nil, lr.off, lr.tooLong()
			}
			raw, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, raw...)
		}
		raw = lr.long
	}
	if err != nil && err != io.EOF {
		lr.begin() // the line that could not be read
		return nil, lr.off, err
	}
	if len(raw) == 0 {
		return nil, lr.off, io.EOF
	}
	start = lr.off
	lr.begin()
	lr.off += int64(len(raw))
	if lr.off > lr.maxSize {
		return nil, start, &LimitError{Limit: "input size", Flag: "--max-bytes", Max: lr.maxSize}
	}
	content = raw
	if n := len(content); n > 0 && content[n-1] == '\n' {
		content = content[:n-1]
		if n := len(content); n > 0 && content[n-1] == '\r' {
			content = content[:n-1]
		}
	}
	if len(content) > lr.max {
		return nil, start, lr.tooLong()
	}
	return content, start, nil
}

// begin counts a new line starting at the current offset.
func (lr *lineReader) begin() {
	lr.line++
	lr.start = lr.off
}

func (lr *lineReader) tooLong() error {
	return &LimitError{Limit: "line length", Flag: "--max-line-bytes", Max: int64(lr.max)}
}

// isBlank reports a line holding only spaces and tabs.
func isBlank(l []byte) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// isFence returns the fence character ('`' or '~') when l, after leading
// spaces and tabs, starts with three of it; 0 otherwise.
func isFence(l []byte) byte {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if len(l)-i >= 3 && (l[i] == '`' || l[i] == '~') && l[i+1] == l[i] && l[i+2] == l[i] {
		return l[i]
	}
	return 0
}
