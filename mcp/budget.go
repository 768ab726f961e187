package mcp

import (
	"fmt"

	"github.com/agent3md/agent3md/internal/textclip"
)

// What a host shows the model (docs/protocol.md §4 and §5). Hosts put a
// tool's answer in front of the model only up to a size: Claude Code keeps
// an answer inline up to 50,000 characters (past that the model gets a
// 2 KB preview and a file path) and cuts error texts near 11,000. So the
// answers a model gets without asking for more are sized under those
// limits, with a margin; --max-answer-bytes (Options.MaxAnswerBytes)
// stays the hard bound on any answer, for callers that ask for more with
// an explicit limit.
//
// Sizes are counted in bytes of UTF-8, which is never fewer than the
// characters (or UTF-16 code units) a host counts.
const (
	// hostAnswerChars bounds every default answer: what a host may show of
	// it (its text blocks, and its structured copy when it has one) holds
	// at most this many characters. list_skills sizes its default page to
	// it, resolve_skill leaves the dependencies that do not fit out and
	// names them.
	hostAnswerChars = 40_000
	// hostErrorChars bounds the text of an error: a tool error's text and
	// a JSON-RPC error's message.
	hostErrorChars = 8_000
)

// clipError shortens an error text to hostErrorChars, saying it was cut.
func clipError(msg string) string {
	if len(msg) <= hostErrorChars {
		return msg
	}
	note := fmt.Sprintf(" [message cut at %d characters]", hostErrorChars)
	return textclip.Bytes(msg, hostErrorChars-len(note)-len(textclip.Ellipsis)) + note
}
