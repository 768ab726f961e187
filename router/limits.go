package router

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxRequestWords is the most words (agent3md/1 tokens: runs of letters and
// digits) a request to Route may hold. Every stage of routing is linear in
// the request's words, but a request is meant to be what a user asked, not
// a document: past this bound Route refuses it with ErrRequestTooLong
// rather than answering from part of it, so an answer is always about the
// whole request.
const MaxRequestWords = 4096

// ErrRequestTooLong is wrapped by the error Route returns for a request of
// more than MaxRequestWords words.
var ErrRequestTooLong = errors.New("request too long to route")

// ctxCheckBytes is how many bytes of request text are scanned between
// checks of the context.
const ctxCheckBytes = 64 << 10

// checkRequest counts text's words, stopping at the first past
// MaxRequestWords, and checks ctx as it goes: a request of megabytes
// without a word in it is still scanned whole.
func checkRequest(ctx context.Context, text string) error {
	words, in := 0, false
	for i, next := 0, ctxCheckBytes; i < len(text); {
		if i >= next {
			if err := ctx.Err(); err != nil {
				return err
			}
			next = i + ctxCheckBytes
		}
		var w bool
		size := 1
		if c := text[i]; c < utf8.RuneSelf {
			w = asciiWord[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			w = isWordRune(r) && !(r == utf8.RuneError && size == 1)
		}
		if w && !in {
			if words++; words > MaxRequestWords {
				return fmt.Errorf("router: %w: it has more than %d words, the most a request may hold; pass the request itself, or a summary of it, not a whole document", ErrRequestTooLong, MaxRequestWords)
			}
		}
		in = w
		i += size
	}
	return nil
}
