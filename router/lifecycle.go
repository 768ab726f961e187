package router

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// openIndex gives r its bleve index: none for zero skills, else a
// Prepared entry's, the cache's or one in memory (buildBleve).
func (r *Router) openIndex(ctx context.Context) error {
	o := &r.opts
	n := r.src.Len()
	if n == 0 {
		r.info.Index = IndexNone
		return nil
	}
	if p := o.Prepared; p != nil {
		if !r.large() || o.NoCache || p.c == nil {
			p.Close()
		} else if ok, err := r.adopt(ctx, p); ok || err != nil {
			return err
		}
	}
	b, err := r.buildBleve(ctx)
	if err != nil {
		return err
	}
	if b.stats == nil { // built in memory
		if b.stats, err = statsFromIndex(ctx, b.idx, r.src.Len()); err != nil {
			b.close()
			return err
		}
	}
	r.use(b)
	return nil
}

// use gives r the index c and what was read or built with it.
func (r *Router) use(c *cached) {
	r.idx, r.scorer, r.cleanup = c.idx, c.stats, c.cleanup
	r.bodies.Store(c.bodies)
	if c.phrases != nil {
		r.phrases = c.phrases
	}
	r.info.Index, r.info.Path, r.info.Reason = c.kind, c.path, c.reason
}

// buildBleve opens or builds r's bleve index (at least one skill): from
// the cache for large agents with a content hash, else in memory, which a
// cache that cannot be used falls back to (Info says why).
func (r *Router) buildBleve(ctx context.Context) (*cached, error) {
	o := &r.opts
	var reason string
	if r.large() && !o.NoCache && o.ContentHash != "" {
		c, err := r.fromCache(ctx)
		if err == nil {
			return c, nil
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reason = fmt.Sprintf("cache unusable, indexed in memory: %v", err)
	}
	idx, bodies, err := buildMemory(ctx, r.corpus(), o.Progress)
	if err != nil {
		return nil, err
	}
	return &cached{idx: idx, bodies: bodies, kind: IndexMemory, reason: reason}, nil
}

// large reports whether r's agent is over Options.MemoryThreshold skills.
func (r *Router) large() bool {
	return r.opts.MemoryThreshold < 0 || r.src.Len() > r.opts.MemoryThreshold
}

func (r *Router) fromCache(ctx context.Context) (*cached, error) {
	root, entry, err := entryDir(&r.opts)
	if err != nil {
		return nil, err
	}
	return openCached(ctx, root, entry, r.opts.ContentHash, r.corpus(), r.opts.Progress)
}

// progressEvery is how many skills are indexed between Progress calls and
// context checks.
const progressEvery = 1000

// buildMemory indexes skills into an in-memory scorch index (not
// bleve.NewMemOnly, which is the older engine and ignores BM25), and
// their bodies into a body index (nil without bodies).
func buildMemory(ctx context.Context, c *corpus, progress func(int, int)) (bleve.Index, *bodyIndex, error) {
	d, err := c.maker()
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
	d, err := c.maker()
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
	d, err := c.maker()
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

// Prepared is a cache entry opened before its skills are known, so a
// server that learns the content hash first (loader.Head.ContentHash)
// opens it while the agent file loads. New adopts it (Options.Prepared)
// only once the skills' fingerprint matches. It is used by at most one
// New, and not safe for concurrent use.
type Prepared struct {
	c      *cached // the entry, read whole; its phrase index not yet checked against any skills
	skills int     // as the manifest records
	done   bool    // adopted or closed
}

// Prepare opens the cache entry for opts.ContentHash. It returns nil and
// no error when there is nothing to prepare: the cache is off, there is no
// hash, or no entry checks out (New then builds one as usual).
func Prepare(ctx context.Context, opts *Options) (*Prepared, error) {
	o := opts.withDefaults()
	if o.NoCache || o.ContentHash == "" {
		return nil, nil
	}
	_, entry, err := entryDir(&o)
	if err != nil {
		return nil, err
	}
	m, err := verifyEntry(entry, o.ContentHash, -1)
	if err != nil {
		return nil, nil
	}
	phrases, err := readPhrases(filepath.Join(entry, phrasesName), nil)
	if err != nil {
		return nil, nil
	}
	idx, err := openReadOnly(entry)
	if err != nil {
		return nil, nil
	}
	c := &cached{idx: idx, phrases: phrases, kind: IndexCacheHit, path: entry, builtFP: m.Fingerprint}
	if err := c.readStats(ctx, m.Skills); err != nil {
		idx.Close()
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, nil
	}
	c.bodies, _ = readBodyIndex(filepath.Join(entry, bodiesName), m.Skills) // nil when it has none, or unreadable
	return &Prepared{c: c, skills: m.Skills}, nil
}

// Close releases a Prepared that New did not adopt; idempotent.
func (p *Prepared) Close() error {
	if p == nil || p.done || p.c == nil {
		return nil
	}
	p.done = true
	return p.c.idx.Close()
}

// adopt gives r the prepared entry if built from exactly r's skills, else
// closes it.
func (r *Router) adopt(ctx context.Context, p *Prepared) (bool, error) {
	if p == nil || p.done {
		return false, nil
	}
	c, in := p.c, r.corpus()
	if p.skills != r.src.Len() || c.phrases.check(r.src) != nil || c.builtFP != fingerprint(in) {
		return false, p.Close()
	}
	if c.bodies == nil && in.bodies() != nil {
		var err error
		if c.bodies, err = buildBodies(ctx, in); err != nil {
			p.Close()
			return false, err
		}
	}
	p.done = true
	r.use(c)
	r.info.Prepared = true
	return true, nil
}
