package router

import (
	"context"
	"fmt"
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
		large := o.MemoryThreshold < 0 || n > o.MemoryThreshold
		if !large || o.NoCache || p.path == "" {
			p.Close()
		} else if ok, err := r.adopt(ctx, p); ok || err != nil {
			return err
		}
	}
	b, err := r.buildBleve(ctx, true)
	if err != nil {
		return err
	}
	r.idx, r.scorer, r.cleanup = b.idx, b.stats, b.cleanup
	r.bodies.Store(b.bodies)
	if b.phrases != nil {
		r.phrases = b.phrases
	}
	r.info.Index, r.info.Path, r.info.Reason = b.kind, b.path, b.reason
	return nil
}

// buildBleve opens or builds r's bleve index (at least one skill): from
// the cache for large agents with a content hash, else in memory, which a
// cache that cannot be used falls back to (Info says why). With scorer
// set, an index built in memory gives its term statistics too.
func (r *Router) buildBleve(ctx context.Context, scorer bool) (*cached, error) {
	o := &r.opts
	n := r.src.Len()
	large := o.MemoryThreshold < 0 || n > o.MemoryThreshold
	var b *cached
	var reason string
	if large && !o.NoCache && o.ContentHash != "" {
		c, err := r.fromCache(ctx)
		if err == nil {
			b = c
		} else if ctx.Err() != nil {
			return nil, ctx.Err()
		} else {
			reason = fmt.Sprintf("cache unusable, indexed in memory: %v", err)
		}
	}
	if b == nil {
		idx, bodies, err := buildMemory(ctx, r.corpus(), o.Progress)
		if err != nil {
			return nil, err
		}
		b = &cached{idx: idx, bodies: bodies, kind: IndexMemory, reason: reason}
	}
	if !scorer || b.stats != nil {
		return b, nil
	}
	s, err := statsFromIndex(ctx, b.idx, n)
	if err != nil {
		b.close()
		return nil, err
	}
	b.stats = s
	return b, nil
}

func (r *Router) fromCache(ctx context.Context) (*cached, error) {
	root, entry, err := entryDir(&r.opts)
	if err != nil {
		return nil, err
	}
	return openCached(ctx, root, entry, r.opts.ContentHash, r.corpus(), r.opts.Progress)
}
