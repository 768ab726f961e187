package router

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// openIndex gives r its bleve index: none for zero skills, in memory for
// small agents or when the cache is off, else from the on-disk cache. A
// cache that cannot be used is never fatal: the index is then built in
// memory and Info says why.
func (r *Router) openIndex(ctx context.Context) error {
	o := &r.opts
	n := r.src.Len()
	if n == 0 {
		r.info.Index = IndexNone
		return nil
	}
	large := o.MemoryThreshold < 0 || n > o.MemoryThreshold
	if p := o.Prepared; p != nil {
		if !large || o.NoCache || p.path == "" {
			p.Close()
		} else if ok, err := r.adopt(ctx, p); ok || err != nil {
			return err
		}
	}
	if large && !o.NoCache && o.ContentHash != "" {
		c, err := r.fromCache(ctx)
		if err == nil {
			r.idx, r.cleanup, r.phrases = c.idx, c.cleanup, c.phrases
			r.info.Index, r.info.Path, r.info.Reason = c.kind, c.path, c.reason
			return r.openScorer(ctx, c.ids)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.info.Reason = fmt.Sprintf("cache unusable, indexed in memory: %v", err)
	}
	idx, err := buildMemory(ctx, r.mapping, r.src, o.Progress)
	if err != nil {
		return err
	}
	r.idx = idx
	r.info.Index = IndexMemory
	return r.openScorer(ctx, nil)
}

// openScorer sets up direct relevance over r.idx (see relevance.go).
func (r *Router) openScorer(ctx context.Context, saved *docIDs) error {
	s, err := openScorer(ctx, r.idx, r.src.Len(), saved)
	if err != nil {
		r.idx.Close()
		if r.cleanup != nil {
			r.cleanup()
		}
		return err
	}
	r.scorer = s
	return nil
}

func (r *Router) fromCache(ctx context.Context) (*cached, error) {
	root, err := cacheRoot(&r.opts)
	if err != nil {
		return nil, err
	}
	return openCached(ctx, root, r.opts.ContentHash, r.mapping, r.src, r.opts.Progress)
}

// Build makes sure the on-disk cache holds a valid index for skills (for
// `agent3md index FILE`): an entry that checks out is kept, a missing or
// bad one is (re)built, reporting through opts.Progress. It needs
// opts.ContentHash and ignores MemoryThreshold.
func Build(ctx context.Context, skills []Skill, opts *Options) (Info, error) {
	start := time.Now()
	o := opts.withDefaults()
	switch {
	case o.NoCache:
		return Info{}, errors.New("router: cannot build a cached index with the cache disabled; drop --no-cache")
	case o.ContentHash == "":
		return Info{}, errors.New("router: cannot build a cached index without the agent file's content hash")
	case len(skills) == 0:
		return Info{Index: IndexNone, Took: time.Since(start)}, nil
	}
	m, err := newMapping()
	if err != nil {
		return Info{}, err
	}
	r := &Router{src: Skills(skills), mapping: m, opts: o}
	c, err := r.fromCache(ctx)
	if err != nil {
		return Info{}, err
	}
	if c.cleanup != nil {
		defer c.cleanup()
	}
	info := Info{Index: c.kind, Skills: len(skills), Path: c.path, Reason: c.reason}
	if err := c.idx.Close(); err != nil {
		return info, fmt.Errorf("router: closing index %s: %w", c.path, err)
	}
	info.Took = time.Since(start)
	return info, nil
}
