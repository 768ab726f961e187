package router

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// plainBM25 is the baseline every evaluation set reports beside ranked
// mode (examples/README.md): Okapi BM25 with k1 1.2 and b 0.75 over one
// document per skill, its name and description, read as lowercase runs of
// letters and digits, each Han, kana or hangul character a token of its
// own, and nothing else: no stems, stop words, triggers or bodies. It is
// what a plain search engine would rank; ranked mode must not do worse
// at any k on a held-out set.
type plainBM25 struct {
	post  map[string][]bm25Posting // token -> skills that hold it, ascending
	len   []float64                // document length in tokens
	avg   float64
	count int
	byZ   []int // skills in z order, for finding a match's skill
}

type bm25Posting struct {
	skill int
	tf    float64
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// newPlainBM25 indexes every skill of src.
func newPlainBM25(src Source) *plainBM25 {
	n := src.Len()
	p := &plainBM25{post: map[string][]bm25Posting{}, len: make([]float64, n), count: n}
	total := 0.0
	for i := range n {
		s := src.Skill(i)
		tf := map[string]int{}
		toks := baselineTokens(nil, s.Name+" "+s.Description)
		for _, t := range toks {
			tf[t]++
		}
		for t, c := range tf {
			p.post[t] = append(p.post[t], bm25Posting{i, float64(c)})
		}
		p.len[i] = float64(len(toks))
		total += p.len[i]
	}
	if n > 0 {
		p.avg = max(total/float64(n), 1)
	}
	p.byZ = make([]int, n)
	for i := range p.byZ {
		p.byZ[i] = i
	}
	slices.SortStableFunc(p.byZ, func(a, b int) int {
		_, za, _ := src.Phrases(a)
		_, zb, _ := src.Phrases(b)
		return cmp.Compare(za, zb)
	})
	return p
}

// rank returns the skills whose document holds one of the request's
// tokens, best first (equal scores in skill order), with their scores.
func (p *plainBM25) rank(toks []string) []scored {
	acc := map[int]float64{}
	for _, t := range distinct(toks) {
		ps := p.post[t]
		idf := p.idf(len(ps))
		for _, e := range ps {
			norm := bm25K1 * (1 - bm25B + bm25B*p.len[e.skill]/p.avg)
			acc[e.skill] += idf * e.tf * (bm25K1 + 1) / (e.tf + norm)
		}
	}
	out := make([]scored, 0, len(acc))
	for s, v := range acc {
		out = append(out, scored{skill: s, score: v})
	}
	slices.SortFunc(out, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.skill, b.skill)
	})
	return out
}

// idf is BM25's inverse document frequency of a token n documents hold.
func (p *plainBM25) idf(n int) float64 {
	return math.Log(1 + (float64(p.count)-float64(n)+0.5)/(float64(n)+0.5))
}

// holds reports whether skill's document holds token t.
func (p *plainBM25) holds(t string, skill int) bool {
	ps := p.post[t]
	_, ok := slices.BinarySearchFunc(ps, skill, func(e bm25Posting, s int) int { return cmp.Compare(e.skill, s) })
	return ok
}

// distinct returns toks sorted, each once (toks is reordered).
func distinct(toks []string) []string {
	slices.Sort(toks)
	return slices.Compact(toks)
}

// baselineTokens appends text's tokens to dst: lowercase runs of letters
// and digits, and each character of an unspaced script alone.
func baselineTokens(dst []string, text string) []string {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			dst = append(dst, strings.ToLower(text[start:end]))
			start = -1
		}
	}
	for i, c := range text {
		switch {
		case unspaced(c):
			flush(i)
			dst = append(dst, string(c))
		case unicode.IsLetter(c) || unicode.IsDigit(c):
			if start < 0 {
				start = i
			}
		default:
			flush(i)
		}
	}
	flush(len(text))
	return dst
}
