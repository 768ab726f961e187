package router

import (
	"math"
	"strconv"
)

// AppendLine appends m as one line of the reference's route answer,
// "name  (score N; matched: a, b)" (docs/format.md §10), without a
// newline. A match of another tier than phrase says so after the
// reference's fields ("; relaxed", "; name"), inside the parentheses, so
// that a reader of the reference's lines still reads it, and a guess
// (relaxed or runner-up) its fit ("; relaxed, fit 40%"); Spec mode's
// matches are all of tier phrase, so its lines are the reference's.
func AppendLine(b []byte, m *Match) []byte {
	b = append(b, m.Name...)
	b = append(b, "  (score "...)
	b = strconv.AppendInt(b, int64(m.Score), 10)
	b = append(b, "; matched: "...)
	for k, h := range m.Hits {
		if k > 0 {
			b = append(b, ", "...)
		}
		b = append(b, h...)
	}
	if m.Tier != TierPhrase && m.Tier != "" {
		b = append(b, "; "...)
		b = append(b, m.Tier...)
	}
	if !Sure(m.Tier) && m.Tier != "" {
		// A guess says how much of the request it holds (Match.Fit).
		b = append(b, ", fit "...)
		b = strconv.AppendInt(b, int64(math.Round(100*m.Fit)), 10)
		b = append(b, '%')
	}
	return append(b, ')')
}
