package router

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Relaxed evidence (relaxed.go) reads which of a request's terms each
// examined skill's fields hold. Analysing a skill's fields, its
// description above all, is most of what a relaxed route costs besides
// the search, and the same few skills are examined again and again: a
// synonym search (synonyms.go) widens the pool of skills examined, and
// at 10 skills it made relaxed routes 40% slower until the terms were
// kept. So a Router keeps the analysed terms of the skills it examines,
// up to evidenceTermsMax of them.

// evidenceTermsMax bounds the skills whose field terms a Router keeps:
// a few kilobytes each, and a relaxed route examines at most
// relaxedLimit*relaxedPool skills.
const evidenceTermsMax = 1024

// skillTerms is one skill's analysed terms per field (index as in
// fields), each list sorted and distinct.
type skillTerms [][]string

// evidenceTerms is a Router's store of skillTerms.
type evidenceTerms struct {
	kept sync.Map // skill position -> skillTerms
	n    atomic.Int64
}

// termsOf returns skill's analysed field terms, kept while there is room.
func (r *Router) termsOf(skill int) skillTerms {
	if v, ok := r.evTerms.kept.Load(skill); ok {
		return v.(skillTerms)
	}
	s := r.src.Skill(skill)
	st := make(skillTerms, len(fields))
	for k, f := range fields {
		val := fieldValue(&s, f.name)
		if val == "" {
			continue
		}
		an := r.an.text
		if f.analyzer == exactAnalyzer {
			an = r.an.exact
		}
		toks := an.Analyze([]byte(val))
		terms := make([]string, len(toks))
		for i, tok := range toks {
			terms[i] = string(tok.Term)
		}
		slices.Sort(terms)
		st[k] = slices.Clip(slices.Compact(terms))
	}
	if r.evTerms.n.Load() < evidenceTermsMax {
		if _, loaded := r.evTerms.kept.LoadOrStore(skill, st); !loaded {
			r.evTerms.n.Add(1)
		}
	}
	return st
}

// holds reports whether the sorted terms hold term.
func holds(terms []string, term string) bool {
	_, ok := slices.BinarySearch(terms, term)
	return ok
}
