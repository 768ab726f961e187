package loader

import (
	"sort"
	"strings"
)

// closest returns up to n of names nearest to query, best first, for "did
// you mean" answers. Distance is the Levenshtein distance between the
// lowercased names (in runes); a name that starts with the query (or the
// query with it) earns a bonus of 2, one that merely contains it (or is
// contained) a bonus of 1. A name is a candidate only when its distance is
// at most half the longer name's length (at least 2) or when it earns a
// bonus, so unrelated names are not suggested. Ties go to the shorter
// distance, then to the name in byte order.
func closest(names []string, query string, n int) []string {
	if n <= 0 || len(names) == 0 {
		return nil
	}
	q := []rune(strings.ToLower(query))
	type cand struct {
		name  string
		score int
		dist  int
	}
	var cands []cand
	seen := map[string]bool{}
	var buf []int
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		low := strings.ToLower(name)
		r := []rune(low)
		bonus := 0
		ql := string(q)
		switch {
		case ql == "":
		case strings.HasPrefix(low, ql) || strings.HasPrefix(ql, low):
			bonus = 2
		case strings.Contains(low, ql) || strings.Contains(ql, low):
			bonus = 1
		}
		limit := max(2, max(len(r), len(q))/2)
		bound := limit
		if bonus > 0 {
			bound = max(len(r), len(q)) // no cut-off: the bonus admits it
		}
		var d int
		d, buf = levenshtein(q, r, bound, buf)
		if d > bound || (bonus == 0 && d > limit) {
			continue
		}
		cands = append(cands, cand{name, d - bonus, d})
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.score != b.score {
			return a.score < b.score
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return a.name < b.name
	})
	out := make([]string, 0, min(n, len(cands)))
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.name)
	}
	return out
}

// levenshtein returns the edit distance between a and b, or some value
// above bound as soon as the distance is known to exceed it (so a long
// list of names is cheap to scan). buf is scratch space, returned for reuse.
func levenshtein(a, b []rune, bound int, buf []int) (int, []int) {
	if d := len(a) - len(b); d > bound || -d > bound {
		return bound + 1, buf
	}
	if cap(buf) < 2*(len(b)+1) {
		buf = make([]int, 2*(len(b)+1))
	}
	prev, cur := buf[:len(b)+1], buf[len(b)+1:2*(len(b)+1)]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > bound {
			return bound + 1, buf
		}
		prev, cur = cur, prev
	}
	return prev[len(b)], buf
}
