package router

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// progressEvery is how many skills are indexed between Progress calls and
// context checks.
const progressEvery = 1000

// buildMemory indexes skills into an in-memory scorch index (not
// bleve.NewMemOnly, which is the older engine and ignores BM25), and
// their bodies into a body index (nil without bodies).
func buildMemory(ctx context.Context, c *corpus, progress func(int, int)) (bleve.Index, *bodyIndex, error) {
	d, err := c.maker(true)
	if err != nil {
		return nil, nil, err
	}
	idx, err := bleve.NewUsing("", c.m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("router: creating in-memory index: %w", err)
	}
	b := idx.NewBatch()
	if err := indexAll(ctx, d, c.skills.Len(), progress, b.Index); err != nil {
		idx.Close()
		return nil, nil, err
	}
	if err := idx.Batch(b); err != nil {
		idx.Close()
		return nil, nil, fmt.Errorf("router: building in-memory index: %w", err)
	}
	report(progress, c.skills.Len(), c.skills.Len())
	return idx, d.bodyIndex(), nil
}

// buildOffline writes a single-segment index of skills (at least one) to
// dir, which must not exist, with scratch (same filesystem) for segments;
// on failure the builder is abandoned unmerged and the caller removes
// both. It returns the body index (nil without bodies).
func buildOffline(ctx context.Context, dir, scratch string, c *corpus, progress func(int, int)) (*bodyIndex, error) {
	n := c.skills.Len()
	if n == 0 {
		// The builder panics when closed with no documents.
		return nil, fmt.Errorf("router: no skills to index in %s", dir)
	}
	d, err := c.maker(true)
	if err != nil {
		return nil, err
	}
	b, err := bleve.NewBuilder(dir, c.m, map[string]interface{}{
		"buildPathPrefix": scratch,
		"batchSize":       progressEvery,
	})
	if err != nil {
		return nil, fmt.Errorf("router: starting index build in %s: %w", dir, err)
	}
	if err := indexAll(ctx, d, n, progress, b.Index); err != nil {
		return nil, err
	}
	if err := b.Close(); err != nil {
		return nil, fmt.Errorf("router: finishing index build in %s: %w", dir, err)
	}
	report(progress, n, n)
	return d.bodyIndex(), nil
}

// buildBodies builds the skills' body index alone (nil without bodies):
// for a cache entry whose body index could not be read.
func buildBodies(ctx context.Context, c *corpus) (*bodyIndex, error) {
	d, err := c.maker(true)
	if err != nil || d.bodies == nil {
		return nil, err
	}
	if err := d.each(ctx, func(int, *Skill, map[string]interface{}) error { return nil }); err != nil {
		return nil, err
	}
	return d.bodyIndex(), nil
}

// indexAll hands every skill's document to index, reporting progress
// and checking ctx every progressEvery skills.
func indexAll(ctx context.Context, d *docMaker, n int, progress func(int, int), index func(id string, doc interface{}) error) error {
	return d.each(ctx, func(i int, s *Skill, doc map[string]interface{}) error {
		if err := index(strconv.Itoa(i), doc); err != nil {
			return fmt.Errorf("router: indexing skill %q: %w", s.Name, err)
		}
		if (i+1)%progressEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			report(progress, i+1, n)
		}
		return nil
	})
}

func report(progress func(int, int), done, total int) {
	if progress != nil {
		progress(done, total)
	}
}
