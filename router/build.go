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

// buildOffline writes a single-segment index of skills (at least one) to
// dir, which must not exist; scratch, on the same filesystem, holds the
// builder's intermediate segments. On failure or cancellation the builder
// is abandoned unmerged, so cancelling stops the work at once: the caller
// removes dir and scratch.
func buildOffline(ctx context.Context, dir, scratch string, m mapping.IndexMapping, skills Source, progress func(int, int)) error {
	n := skills.Len()
	if n == 0 {
		// The builder panics when closed with no documents.
		return fmt.Errorf("router: no skills to index in %s", dir)
	}
	b, err := bleve.NewBuilder(dir, m, map[string]interface{}{
		"buildPathPrefix": scratch,
		"batchSize":       progressEvery,
	})
	if err != nil {
		return fmt.Errorf("router: starting index build in %s: %w", dir, err)
	}
	for i := 0; i < n; i++ {
		s := skills.Skill(i)
		if err := b.Index(strconv.Itoa(i), document(&s)); err != nil {
			return fmt.Errorf("router: indexing skill %q: %w", s.Name, err)
		}
		if (i+1)%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			report(progress, i+1, n)
		}
	}
	if err := b.Close(); err != nil {
		return fmt.Errorf("router: finishing index build in %s: %w", dir, err)
	}
	report(progress, n, n)
	return nil
}

func report(progress func(int, int), done, total int) {
	if progress != nil {
		progress(done, total)
	}
}
