package router

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync"
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
	post    map[string]plainTerm // token -> skills that hold it, and its idf
	norm    []float64            // k1 · (1 - b + b · length / average length), per skill
	count   int
	byZ     []int     // skills in z order, for finding a match's skill
	zs      []float64 // their z, in that order
	scratch sync.Pool // *plainScratch
}

// plainTerm is a token's postings, by skill ascending, and its idf.
type plainTerm struct {
	post []bm25Posting
	idf  float64
}

type bm25Posting struct {
	skill int32
	tf    float32
}

// plainScratch is one rank's memory: a score per skill, and the skills
// it touched, to reset.
type plainScratch struct {
	acc     []float64
	touched []int32
}

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// newPlainBM25 indexes every skill of src.
func newPlainBM25(src Source) *plainBM25 {
	n := src.Len()
	p := &plainBM25{post: map[string]plainTerm{}, norm: make([]float64, n), count: n}
	total := 0.0
	var toks []string
	for i := range n {
		s := src.Skill(i)
		toks = baselineTokens(baselineTokens(toks[:0], s.Name), s.Description)
		p.norm[i] = float64(len(toks))
		total += p.norm[i]
		slices.Sort(toks)
		for k := 0; k < len(toks); {
			e := k + 1
			for e < len(toks) && toks[e] == toks[k] {
				e++
			}
			t := p.post[toks[k]]
			t.post = append(t.post, bm25Posting{int32(i), float32(e - k)})
			p.post[toks[k]] = t
			k = e
		}
	}
	avg := 1.0
	if n > 0 {
		avg = max(total/float64(n), 1)
	}
	for i := range p.norm {
		p.norm[i] = bm25K1 * (1 - bm25B + bm25B*p.norm[i]/avg)
	}
	for tok, t := range p.post {
		t.idf = p.idf(len(t.post))
		p.post[tok] = t
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
	p.zs = make([]float64, n)
	for i, s := range p.byZ {
		_, p.zs[i], _ = src.Phrases(s)
	}
	return p
}

// rank returns the best k skills (every one when k is 0) whose document
// holds one of the request's tokens, best first (equal scores in skill
// order), with their scores.
func (p *plainBM25) rank(toks []string, k int) []scored {
	var terms []plainTerm
	for _, t := range distinct(toks) {
		terms = append(terms, p.post[t])
	}
	return p.rankTerms(terms, k)
}

// rankTerms is rank over the request's tokens' postings and idfs.
func (p *plainBM25) rankTerms(terms []plainTerm, k int) []scored {
	sc, _ := p.scratch.Get().(*plainScratch)
	if sc == nil {
		sc = &plainScratch{acc: make([]float64, p.count)}
	}
	for _, pt := range terms {
		idf := pt.idf
		for _, e := range pt.post {
			if sc.acc[e.skill] == 0 {
				sc.touched = append(sc.touched, e.skill)
			}
			tf := float64(e.tf)
			sc.acc[e.skill] += idf * tf * (bm25K1 + 1) / (tf + p.norm[e.skill])
		}
	}
	better := func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.skill, b.skill)
	}
	if k <= 0 {
		k = len(sc.touched)
	}
	out := make([]scored, 0, min(k, len(sc.touched))+1)
	for _, s := range sc.touched {
		h := scored{skill: int(s), score: sc.acc[s]}
		sc.acc[s] = 0
		if len(out) == k && better(h, out[k-1]) >= 0 {
			continue
		}
		// Insert in order; the list holds at most k.
		at, _ := slices.BinarySearchFunc(out, h, better)
		out = slices.Insert(out, at, h)
		if len(out) > k {
			out = out[:k]
		}
	}
	sc.touched = sc.touched[:0]
	p.scratch.Put(sc)
	return out
}

// idf is BM25's inverse document frequency of a token n documents hold.
func (p *plainBM25) idf(n int) float64 {
	return math.Log(1 + (float64(p.count)-float64(n)+0.5)/(float64(n)+0.5))
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
