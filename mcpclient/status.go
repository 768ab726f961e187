package mcpclient

import (
	"encoding/json"
	"fmt"

	"github.com/agent3md/agent3md/internal/textclip"
)

// StatusError is a request an HTTP server refused with a status of 400 or
// more: what it answered, and the message of the JSON-RPC error in its
// body, whole, when there is one (a server's message often names the fix:
// an unknown endpoint's lists the served ones). Callers that know their
// user's flags read it to lead with the fix (cmd/agent3md's sync).
type StatusError struct {
	// Status is the HTTP status code.
	Status int
	// Message is the JSON-RPC error message of the body, "" when none.
	Message string
	// Err says what happened, as the transport words it.
	Err error
}

func (e *StatusError) Error() string { return e.Err.Error() }
func (e *StatusError) Unwrap() error { return e.Err }

// maxServerMessage bounds the server message kept whole.
const maxServerMessage = 4096

// errorMessage is the JSON-RPC error message of body, "" when body is no
// error.
func errorMessage(body []byte) string {
	var m struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil || m.Error == nil {
		return ""
	}
	return textclip.Bytes(m.Error.Message, maxServerMessage)
}

// refused wraps a problem with an answer of status 400 or more as a
// *StatusError; the server's error message, whole, replaces the short
// snippet of the body the problem quotes.
func refused(status int, statusText, what string, body []byte, problem error) error {
	if status < 400 || problem == nil {
		return problem
	}
	msg := errorMessage(body)
	switch {
	case msg == "":
	case status == 401 || status == 403:
		problem = fmt.Errorf("%w: %s", problem, msg) // the hint names what was sent
	default:
		problem = fmt.Errorf("%s answered %s: %s", what, statusText, msg)
	}
	return &StatusError{Status: status, Message: msg, Err: problem}
}
