package router

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Stage 1 of a ranked route: read the request. Its tokens (Chinese,
// Japanese and Korean runs cut at the agent's words, segment.go), their
// Porter stems, the phrase index's vocabulary ids of both, and the
// request as specificity reads it (request, specificity.go) go into the
// route's tally, reused route after route; what a Match keeps of them is
// copied.

// readRequest reads text into t and returns the request as specificity
// reads it.
func (r *Router) readRequest(t *hitTally, sp *specifics, text string) request {
	toks := appendTokens(t.toks[:0], text)
	if hasUnspaced(text) {
		if words, cut := r.segmenterOf().split(nil, toks); cut {
			toks = words
		}
	}
	stems := appendStems(t.stems[:0], toks)
	t.reqE = r.phrases.exact.lookup(t.reqE[:0], toks)
	t.reqS = r.phrases.stems.lookupStems(t.reqS[:0], toks, stems, &t.pair)
	t.rq = sp.readRequest(t.rq, toks, stems)
	t.toks, t.stems = toks, stems
	return t.rq
}

// lookupPlurals is lookup over toks and, for each, the forms it has as a
// plural or a singular by English's regular -s and -es: for evidence, a
// word met in another number ("deploys" for "deploy") counts as met as
// written, not through a stem.
func (v *vocabLists) lookupPlurals(dst []uint32, toks []string) []uint32 {
	var onStack [32]byte
	buf := onStack[:0]
	try := func(b []byte) {
		if id, ok := v.ids[string(b)]; ok {
			dst = append(dst, id)
		}
	}
	for _, tok := range toks {
		buf = append(buf[:0], tok...)
		try(buf)
		try(append(buf, 's'))
		try(append(buf, "es"...))
		if n := len(tok); n > 3 && tok[n-1] == 's' {
			try(buf[:n-1])
			if tok[n-2] == 'e' {
				try(buf[:n-2])
			}
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// lookupStems is lookup over the Porter stems of a request's tokens
// (stems, one per token) and the stem of each adjacent pair written as
// one word, so "crash-looping" meets a trigger "crashloop" and "roll
// back" meets "rollback". A pair is joined in *buf, memory the caller
// keeps: a pair whose stem is remembered costs no allocation.
func (v *vocabLists) lookupStems(dst []uint32, toks, stems []string, buf *[]byte) []uint32 {
	for _, st := range stems {
		if id, ok := v.ids[st]; ok {
			dst = append(dst, id)
		}
	}
	b := *buf
	for i := 1; i < len(toks); i++ {
		b = append(append(b[:0], toks[i-1]...), toks[i]...)
		if id, ok := v.ids[routeStemBytes(b)]; ok {
			dst = append(dst, id)
		}
	}
	*buf = b
	slices.Sort(dst)
	return slices.Compact(dst)
}

// appendStems appends the Porter stem of each token to dst.
func appendStems(dst, toks []string) []string {
	for _, tok := range toks {
		dst = append(dst, routeStem(tok))
	}
	return dst
}

// routeStems remembers the stems of request words: requests repeat a
// small vocabulary, and a Porter stem costs far more than a lookup.
var routeStems struct {
	cache sync.Map // string -> string
	size  atomic.Int64
}

// routeStem is stem behind routeStems, bounded like the analyzer's cache.
func routeStem(tok string) string {
	if v, ok := routeStems.cache.Load(tok); ok {
		return v.(string)
	}
	return storeStem(tok)
}

// routeStemBytes is routeStem of string(b), which it only builds when
// the stem is not remembered.
func routeStemBytes(b []byte) string {
	if v, ok := routeStems.cache.Load(string(b)); ok {
		return v.(string)
	}
	return storeStem(string(b))
}

// storeStem stems tok and remembers it while routeStems has room.
func storeStem(tok string) string {
	st := stem(tok)
	if routeStems.size.Load() < stemCacheMax {
		if _, loaded := routeStems.cache.LoadOrStore(tok, st); !loaded {
			routeStems.size.Add(1)
		}
	}
	return st
}
