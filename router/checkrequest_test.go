package router

import (
	"context"
	"testing"
)

// FuzzCountTokensBytes: a text holds no more words than bytes, which
// checkRequest relies on to let a text of MaxRequestWords bytes or fewer
// through uncounted.
func FuzzCountTokensBytes(f *testing.F) {
	for _, s := range []string{"", "a b c", "吊牌还在，没洗过，能退吗", "a\xffb", "x1y2 ＡＢ 한국어 カタカナ", "İ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if n, err := countTokens(context.Background(), text, 1<<30); err != nil || n > len(text) {
			t.Fatalf("%q (%d bytes): countTokens = %d, %v", text, len(text), n, err)
		}
	})
}
