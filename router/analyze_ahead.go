package router

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"

	bdoc "github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
)

// An offline bleve build is serial: for each batch it maps and analyzes
// every document, then encodes a segment, then merges the segments. The
// analysis is independent per document, so analyzeAhead runs it on the
// other cores while the builder encodes the previous batch, and hands the
// builder documents that are already analyzed through preAnalyzed. The
// builder still sees every document once, in skill order, so the index it
// writes is the one a serial build writes.

// aheadChunk is how many skills one analysis job covers: large enough that
// hand-offs are few (on a loaded machine each wake-up can cost a
// scheduling delay), small enough that the builder starts soon.
const aheadChunk = 256

// aheadChunks bounds how many analyzed chunks may wait for the builder,
// which bounds the memory analysis ahead can hold: about one builder
// batch (progressEvery documents). Less lookahead measured slower on a
// loaded machine, where either goroutine may wait out the other's
// preemption.
const aheadChunks = 4

// analyzedChunk is skills [start, start+len(docs)) mapped and analyzed;
// when err is set, docs holds those before the failing skill.
type analyzedChunk struct {
	docs []*bdoc.Document
	err  error
}

// analyzeAhead maps and analyzes skills on max(1, GOMAXPROCS-1) goroutines
// and delivers them in skill order. The channel closes after the last
// chunk, or early when ctx is cancelled; a chunk with err set is the last.
func analyzeAhead(ctx context.Context, im *mapping.IndexMappingImpl, skills Source) <-chan analyzedChunk {
	n := skills.Len()
	out := make(chan analyzedChunk)
	// Each job's result has a one-slot channel of its own; order carries
	// those channels in skill order, so its buffer bounds the lookahead.
	order := make(chan chan analyzedChunk, aheadChunks)
	jobs := make(chan func(), aheadChunks)
	workers := max(1, runtime.GOMAXPROCS(0)-1)
	for w := 0; w < workers; w++ {
		go func() {
			for job := range jobs {
				job()
			}
		}()
	}
	go func() { // dispatcher
		defer close(jobs)
		defer close(order)
		for start := 0; start < n; start += aheadChunk {
			res := make(chan analyzedChunk, 1)
			end := min(start+aheadChunk, n)
			select {
			case order <- res:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- func() { res <- analyzeRange(ctx, im, skills, start, end) }:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { // collector: waits for each chunk in turn
		defer close(out)
		for res := range order {
			var c analyzedChunk
			select {
			case c = <-res:
			case <-ctx.Done():
				return
			}
			select {
			case out <- c:
			case <-ctx.Done():
				return
			}
			if c.err != nil {
				return
			}
		}
	}()
	return out
}

// analyzeRange maps and analyzes skills [start, end).
func analyzeRange(ctx context.Context, im *mapping.IndexMappingImpl, skills Source, start, end int) analyzedChunk {
	c := analyzedChunk{docs: make([]*bdoc.Document, 0, end-start)}
	if err := ctx.Err(); err != nil {
		c.err = err
		return c
	}
	for i := start; i < end; i++ {
		s := skills.Skill(i)
		d := bdoc.NewDocument(strconv.Itoa(i))
		if err := im.MapDocument(d, document(&s)); err != nil {
			c.err = fmt.Errorf("router: indexing skill %q: %w", s.Name, err)
			return c
		}
		for k, f := range d.Fields {
			f.Analyze()
			d.Fields[k] = analyzedField{f}
		}
		c.docs = append(c.docs, d)
	}
	return c
}

// analyzedField is a document field whose analysis is done: the builder's
// call to Analyze keeps the result instead of analyzing again.
type analyzedField struct{ bdoc.Field }

// Analyze implements bleve's document.Field; the field was analyzed already.
func (analyzedField) Analyze() {}

// preAnalyzed is the index mapping for a build fed by analyzeAhead: it
// maps a *bdoc.Document by taking its analyzed fields, anything else
// as the mapping does. It persists as the mapping itself, so the index
// reopens with the ordinary mapping.
type preAnalyzed struct{ *mapping.IndexMappingImpl }

// MapDocument implements mapping.IndexMapping.
func (p preAnalyzed) MapDocument(doc *bdoc.Document, data interface{}) error {
	pre, ok := data.(*bdoc.Document)
	if !ok {
		return p.IndexMappingImpl.MapDocument(doc, data)
	}
	if pre.ID() != doc.ID() {
		return fmt.Errorf("router: analyzed document %q given as %q", pre.ID(), doc.ID())
	}
	doc.Fields, doc.CompositeFields, doc.StoredFieldsSize = pre.Fields, pre.CompositeFields, pre.StoredFieldsSize
	if pre.Indexed() {
		doc.SetIndexed()
	}
	return nil
}

// MarshalJSON persists the underlying mapping.
func (p preAnalyzed) MarshalJSON() ([]byte, error) {
	return json.Marshal(p.IndexMappingImpl)
}
