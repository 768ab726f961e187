package loader

import (
	"strings"
)

// candidate is one name in the running "did you mean" top list.
type candidate struct {
	name  string
	score int // distance minus bonus
	dist  int
}

func (c candidate) less(o candidate) bool {
	if c.score != o.score {
		return c.score < o.score
	}
	if c.dist != o.dist {
		return c.dist < o.dist
	}
	return c.name < o.name
}

// maxClosestQuery is the longest query closest compares, in bytes.
const maxClosestQuery = 256

// closest returns up to n of names nearest to query, best first, for "did
// you mean" answers. Distance is the Levenshtein distance between the
// lowercased names (in runes); a name that starts with the query (or the
// query with it) earns a bonus of 2, one that merely contains it (or is
// contained) a bonus of 1; score = distance - bonus. A name is a candidate
// only when its distance is at most half the longer name's length (at
// least 2) or when it earns a bonus, so unrelated names are not suggested.
// Ties go to the shorter distance, then to the name in byte order.
//
// It keeps only the current top n and gives the edit distance a cut-off
// that a name must beat to enter it, so scanning 100,000 names stays cheap.
// A query longer than maxClosestQuery gets no suggestions: it is no typo
// of a skill name, and comparing it with every name would let a client
// choose how much work one unknown-skill answer costs.
func closest(names []string, query string, n int) []string {
	if n <= 0 || len(names) == 0 || len(query) > maxClosestQuery {
		return nil
	}
	ql := strings.ToLower(query)
	q := []rune(ql)
	top := make([]candidate, 0, n+1)
	var r []rune
	var buf []int
	for _, name := range names {
		low := strings.ToLower(name) // no copy when already lowercase
		bonus := 0
		switch {
		case ql == "":
		case strings.HasPrefix(low, ql) || strings.HasPrefix(ql, low):
			bonus = 2
		case strings.Contains(low, ql) || strings.Contains(ql, low):
			bonus = 1
		}
		r = r[:0]
		for _, c := range low {
			r = append(r, c)
		}
		longer := max(len(r), len(q))
		bound := max(2, longer/2)
		if bonus > 0 {
			bound = longer // the bonus admits it at any distance
		}
		if len(top) == n {
			bound = min(bound, top[n-1].score+bonus) // must at least tie the worst
		}
		var d int
		d, buf = levenshtein(q, r, bound, buf)
		if d > bound {
			continue
		}
		c := candidate{name, d - bonus, d}
		if len(top) == n && !c.less(top[n-1]) {
			continue
		}
		top = insert(top, c, n)
	}
	out := make([]string, len(top))
	for i, c := range top {
		out[i] = c.name
	}
	return out
}

// insert puts c into the sorted list top (at most n long), unless a
// candidate of the same name is already there (duplicate skill names).
func insert(top []candidate, c candidate, n int) []candidate {
	for _, t := range top {
		if t.name == c.name {
			return top
		}
	}
	i := len(top)
	for i > 0 && c.less(top[i-1]) {
		i--
	}
	top = append(top, candidate{})
	copy(top[i+1:], top[i:])
	top[i] = c
	if len(top) > n {
		top = top[:n]
	}
	return top
}

// levenshtein returns the edit distance between a and b, or bound+1 as
// soon as the distance is known to exceed bound. Only the diagonal band of
// width 2*bound+1 is computed (cells outside it cannot be within bound).
// buf is scratch space, returned for reuse.
func levenshtein(a, b []rune, bound int, buf []int) (int, []int) {
	inf := bound + 1
	if d := len(a) - len(b); d > bound || -d > bound {
		return inf, buf
	}
	w := len(b) + 1
	if cap(buf) < 2*w {
		buf = make([]int, 2*w)
	}
	prev, cur := buf[:w], buf[w:2*w]
	for j := range prev {
		prev[j] = min(j, inf)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-bound), min(len(b), i+bound)
		rowMin := inf
		if lo == 1 {
			cur[0] = min(i, inf)
			rowMin = cur[0]
		} else {
			cur[lo-1] = inf
		}
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, inf)
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if hi < len(b) {
			cur[hi+1] = inf
		}
		if rowMin > bound {
			return inf, buf
		}
		prev, cur = cur, prev
	}
	return prev[len(b)], buf
}
