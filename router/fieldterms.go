package router

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Relaxed evidence (evidence in relaxed.go) asks which request terms each
// field of a skill holds. Analyzing every field of every skill a relaxed
// search finds, on every route, was two thirds of a relaxed route with
// matches; on an agent of skill folders without triggers, every route is
// one. A small agent's skills keep their fields' terms once read.

// fieldTermsMax is the most skills whose field terms are kept: the
// pointers cost 8 bytes a skill up front and the terms a few hundred
// bytes for each skill a relaxed route has found. Larger agents analyze
// the fields on each route.
const fieldTermsMax = 4096

// fieldTermCache holds, per skill position, its fields' terms once read.
type fieldTermCache struct {
	once   sync.Once
	skills []atomic.Pointer[skillTerms]
}

// skillTerms are one skill's terms, per entry of fields: distinct and
// sorted.
type skillTerms [][]string

// fieldTerms returns the terms of skill s (at position skill), per entry
// of fields, as the field's analyzer gives them: distinct and sorted.
func (r *Router) fieldTerms(skill int, s *Skill) skillTerms {
	c := &r.fieldCache
	n := r.src.Len()
	if n > fieldTermsMax || skill < 0 || skill >= n {
		return r.analyzeFields(s)
	}
	c.once.Do(func() { c.skills = make([]atomic.Pointer[skillTerms], n) })
	if st := c.skills[skill].Load(); st != nil {
		return *st
	}
	st := r.analyzeFields(s)
	c.skills[skill].Store(&st)
	return st
}

// analyzeFields runs each field of s through its analyzer.
func (r *Router) analyzeFields(s *Skill) skillTerms {
	st := make(skillTerms, len(fields))
	for k, f := range fields {
		val := fieldValue(s, f.name)
		if val == "" {
			continue
		}
		an := r.an.text
		if f.analyzer == exactAnalyzer {
			an = r.an.exact
		}
		toks := an.Analyze([]byte(val))
		terms := make([]string, 0, len(toks))
		for _, tok := range toks {
			terms = append(terms, string(tok.Term))
		}
		slices.Sort(terms)
		st[k] = slices.Clip(slices.Compact(terms))
	}
	return st
}
