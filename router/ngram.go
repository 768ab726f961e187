package router

import "strings"

// wordsText is the text the analyzers read for a request whose tokens
// are toks: when a run of an unspaced script was cut at the agent's
// words (segment.go), the words with a space between each, so that no
// pair of characters the relaxed tier weighs spans two words the
// segmenter found ("收货地址" cut as 收货|地址 gives no 货地); else text
// as written.
func wordsText(text string, toks []string) string {
	if !hasUnspaced(text) {
		return text
	}
	return strings.Join(toks, " ")
}
