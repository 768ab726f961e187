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
// without a word in it is still scanned whole. A word counts as the
// tokens the index reads it as (bigramSpans): in Chinese, Japanese and
// Korean each pair of characters is one, so a request of a megabyte of
// Chinese, a single run of letters, is as long as it looks and is refused
// like any other, rather than analysed into a million pairs.
func checkRequest(ctx context.Context, text string) error {
	words, err := countTokens(ctx, text, MaxRequestWords)
	if err == nil && words > MaxRequestWords {
		err = fmt.Errorf("router: %w: it has more than %d words (a pair of characters counts as one in Chinese, Japanese and Korean), the most a request may hold; pass the request itself, or a summary of it, not a whole document", ErrRequestTooLong, MaxRequestWords)
	}
	return err
}

// countTokens counts the tokens the index's tokenizer would read in text,
// stopping at the first past most.
func countTokens(ctx context.Context, text string, most int) (int, error) {
	words := 0
	const (
		none = iota // between words
		other
		paired // in a run of an unspaced script
	)
	prev, run := none, 0 // run: the runes of the current unspaced run
	for i, next := 0, ctxCheckBytes; i < len(text); {
		if i >= next {
			if err := ctx.Err(); err != nil {
				return words, err
			}
			next = i + ctxCheckBytes
		}
		kind := none
		size := 1
		if c := text[i]; c < utf8.RuneSelf {
			if asciiWord[c] {
				kind = other
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			switch {
			case !isWordRune(r) || r == utf8.RuneError && size == 1:
			case unspaced(r):
				kind = paired
			default:
				kind = other
			}
		}
		// A token starts where a word starts, where the script changes
		// inside a word, and at every rune of an unspaced run from its
		// second pair on.
		if kind == paired {
			run++
		} else {
			run = 0
		}
		if kind != none && (kind != prev || run >= 3) {
			if words++; words > most {
				return words, nil
			}
		}
		prev = kind
		i += size
	}
	return words, nil
}
