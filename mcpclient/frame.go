package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// LineReader reads newline-delimited messages (docs/protocol.md §2) with a
// bound on a line's length: the rest of a longer line is skipped without
// being held in memory, and the line is reported as too long. A trailing
// "\r" is dropped, and so is the last line's missing newline.
type LineReader struct {
	br  *bufio.Reader
	max int
}

// NewLineReader reads r in lines of at most max bytes (without the
// newline).
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Buffered is how many bytes are read and not yet returned: a server
// that answers lines in batches flushes when none are left.
func (lr *LineReader) Buffered() int { return lr.br.Buffered() }

// Next returns the next line, a copy the caller owns. tooLong reports a
// line over the bound, of which nothing is returned. err is io.EOF at the
// end of the input (the last line may come with it).
func (lr *LineReader) Next() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if !tooLong {
			n := len(line) + len(chunk)
			if err == nil {
				n-- // the '\n' itself
			}
			if n > lr.max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		return line, tooLong, err
	}
}

// envelope is what dispatch needs of a received message, read without
// decoding the rest: its id (raw, nil when absent) and its method.
type envelope struct {
	id        []byte
	method    string
	hasMethod bool
}

// kind of a received message.
func (e envelope) request() bool {
	return e.hasMethod && len(e.id) > 0 && string(e.id) != "null"
}

// errNotEnvelope marks a line that is not a JSON object with a usable id
// and method; Decode says what exactly is wrong with it.
var errNotEnvelope = errors.New("not a JSON-RPC message")

// peekEnvelope reads the id and method of one message by scanning its
// top-level members, skipping the values of the others without decoding
// them: a client that pipelines thousands of requests dispatches each answer
// without paying for a full decode on the reading goroutine (the caller
// decodes its own answer, as and when it wants). Once the id and a result
// or error are seen the scan stops: the rest is the caller's to read.
func peekEnvelope(b []byte) (envelope, error) {
	var env envelope
	seenID := false
	var bad bool
	err := eachMember(b, func(key, value []byte) bool {
		switch string(key) {
		case "id":
			env.id, seenID = value, true
		case "method":
			if json.Unmarshal(value, &env.method) != nil {
				bad = true
				return false
			}
			// A null or empty method is no method, as Decode reads it.
			env.hasMethod = env.method != ""
		case "result", "error":
			return !seenID || env.hasMethod
		}
		return true
	})
	if err != nil || bad {
		return envelope{}, errNotEnvelope
	}
	return env, nil
}

// eachMember calls fn with the key (decoded) and raw value of each
// top-level member of the JSON object b, in order, until fn returns
// false. Values are skipped, not decoded: it checks nesting and strings,
// not every token.
func eachMember(b []byte, fn func(key, value []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotEnvelope
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		key, next, ok := scanString(b, i)
		if !ok {
			return errNotEnvelope
		}
		i = skipSpace(b, next)
		if i >= len(b) || b[i] != ':' {
			return errNotEnvelope
		}
		i = skipSpace(b, i+1)
		end, ok := skipValue(b, i)
		if !ok {
			return errNotEnvelope
		}
		if !fn(key, b[i:end]) {
			return nil
		}
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return nil
		default:
			return errNotEnvelope
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString reads the string starting at b[i]; key is its decoded value
// (the raw bytes when it has no escapes).
func scanString(b []byte, i int) (key []byte, next int, ok bool) {
	end, ok := skipString(b, i)
	if !ok {
		return nil, 0, false
	}
	raw := b[i+1 : end-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw, end, true
	}
	var s string
	if json.Unmarshal(b[i:end], &s) != nil {
		return nil, 0, false
	}
	return []byte(s), end, true
}

// skipString returns the index after the string that starts at b[i].
// The closing quote is found with IndexByte, which is fast on the long
// strings answers carry (a SKILL.md's text).
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		backslashes := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			backslashes++
		}
		j++
		if backslashes%2 == 0 {
			return j, true
		}
	}
}

// skipValue returns the index after the JSON value that starts at b[i].
// It checks nesting and strings, not every token: Decode judges the
// message as a whole.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := skipString(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j, j > i
}
