package router

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
)

// progressEvery is how many skills are indexed between Progress calls and
// context checks.
const progressEvery = 1000

// buildMemory indexes skills into an in-memory scorch index (not
// bleve.NewMemOnly, which is the older engine and ignores BM25).
func buildMemory(ctx context.Context, m mapping.IndexMapping, skills Source, progress func(int, int)) (bleve.Index, error) {
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("router: creating in-memory index: %w", err)
	}
	b := idx.NewBatch()
	n := skills.Len()
	for i := 0; i < n; i++ {
		s := skills.Skill(i)
		if err := b.Index(strconv.Itoa(i), document(&s)); err != nil {
			idx.Close()
			return nil, fmt.Errorf("router: indexing skill %q: %w", s.Name, err)
		}
		if (i+1)%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				idx.Close()
				return nil, err
			}
			report(progress, i+1, n)
		}
	}
	if err := idx.Batch(b); err != nil {
		idx.Close()
		return nil, fmt.Errorf("router: building in-memory index: %w", err)
	}
	report(progress, n, n)
	return idx, nil
}

// Offline build shape. Each batch becomes a segment, and the builder then
// merges them mergeMax at a time. The batch's analyzed documents and its
// segment encoding are most of what a build holds in memory, so batches
// are small; merging up to 20 keeps a 100,000-skill build to two merge
// passes (200 segments, 10, 1).
const (
	buildBatch    = 500
	buildMergeMax = 20
)

// buildOffline writes a single-segment index of skills (at least one) to
// dir, which must not exist; scratch, on the same filesystem, holds the
// builder's intermediate segments. Analysis, a third of the work, runs on
// the other cores ahead of the builder (see analyzeAhead); the builder sees
// the same documents in the same order as a serial build, so the index,
// and every score read from it, is the same.
func buildOffline(ctx context.Context, dir, scratch string, m mapping.IndexMapping, skills Source, progress func(int, int)) error {
	im, ok := m.(*mapping.IndexMappingImpl)
	if !ok {
		return fmt.Errorf("router: index mapping is a %T, want *mapping.IndexMappingImpl", m)
	}
	b, err := bleve.NewBuilder(dir, preAnalyzed{im}, map[string]interface{}{
		"buildPathPrefix": scratch,
		"batchSize":       buildBatch,
		"mergeMax":        buildMergeMax,
	})
	if err != nil {
		return fmt.Errorf("router: starting index build in %s: %w", dir, err)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop() // ends the analysis goroutines on every return
	docs := analyzeAhead(ctx, im, skills)
	var failed error
	indexed := 0
	n := skills.Len()
	for i := 0; i < n && failed == nil; {
		c, ok := <-docs
		if !ok { // stopped early: only cancellation does that
			failed = ctx.Err()
			break
		}
		for _, d := range c.docs {
			if err := b.Index(d.ID(), d); err != nil {
				failed = fmt.Errorf("router: indexing skill %q: %w", skills.Skill(i).Name, err)
				break
			}
			indexed++
			if i++; i%progressEvery == 0 {
				if err := ctx.Err(); err != nil {
					failed = err
					break
				}
				report(progress, i, n)
			}
		}
		if failed == nil && c.err != nil {
			failed = c.err
		}
	}
	if indexed == 0 {
		// The builder panics when closed with no documents; the caller
		// removes what it left behind.
		if failed == nil {
			failed = fmt.Errorf("router: no skills to index in %s", dir)
		}
		return failed
	}
	if err := b.Close(); err != nil && failed == nil {
		failed = fmt.Errorf("router: finishing index build in %s: %w", dir, err)
	}
	if failed == nil {
		report(progress, n, n)
	}
	return failed
}

func report(progress func(int, int), done, total int) {
	if progress != nil {
		progress(done, total)
	}
}
