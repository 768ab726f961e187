package router

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
)

// Prepared is a cache entry opened before its skills are known, so a
// server that learns the content hash first (loader.Head.ContentHash)
// opens it while the agent file loads. New adopts it (Options.Prepared)
// only once the skills' fingerprint matches. It is used by at most one
// New, and not safe for concurrent use.
type Prepared struct {
	path    string
	skills  int    // as the manifest records
	fp      uint32 // fingerprint of the skills it was built from
	idx     bleve.Index
	scorer  *termStats   // for the manifest's skill count
	reason  string       // why the statistics were read out of idx
	phrases *phraseIndex // not yet checked against any skills
	bodies  *bodyIndex   // nil when the entry has none (or it is unreadable)
	done    bool         // adopted or closed
}

// errNoEntry: Prepare found no usable entry.
var errNoEntry = errors.New("router: no cache entry to prepare")

// Prepare opens the cache entry for opts.ContentHash. It returns nil and
// no error when there is nothing to prepare: the cache is off, there is no
// hash, or no entry checks out (New then builds one as usual).
func Prepare(ctx context.Context, opts *Options) (*Prepared, error) {
	o := opts.withDefaults()
	if o.NoCache || o.ContentHash == "" {
		return nil, nil
	}
	p, err := prepare(ctx, &o)
	if errors.Is(err, errNoEntry) || errors.Is(err, errBadEntry) {
		return nil, nil
	}
	return p, err
}

func prepare(ctx context.Context, o *Options) (*Prepared, error) {
	_, entry, err := entryDir(o)
	if err != nil {
		return nil, err
	}
	m, err := verifyEntry(entry, o.ContentHash, -1)
	if err != nil {
		return nil, err
	}
	phrases, err := readPhrases(filepath.Join(entry, phrasesName), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoEntry, err)
	}
	idx, err := openReadOnly(entry)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoEntry, err)
	}
	c := &cached{idx: idx, path: entry}
	if err := c.readStats(ctx, m.Skills); err != nil {
		idx.Close()
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", errNoEntry, err)
	}
	bodies, _ := readBodyIndex(filepath.Join(entry, bodiesName), m.Skills)
	return &Prepared{path: entry, skills: m.Skills, fp: m.Fingerprint, idx: idx, scorer: c.stats, reason: c.reason, phrases: phrases, bodies: bodies}, nil
}

// Close releases a Prepared that New did not adopt; idempotent.
func (p *Prepared) Close() error {
	if p == nil || p.done {
		return nil
	}
	p.done = true
	return p.idx.Close()
}

// adopt gives r the prepared entry if built from exactly r's skills, else
// closes it.
func (r *Router) adopt(ctx context.Context, p *Prepared) (bool, error) {
	if p == nil || p.done {
		return false, nil
	}
	n := r.src.Len()
	if p.skills != n || p.phrases.check(r.src) != nil || p.fp != fingerprint(r.corpus()) {
		return false, p.Close()
	}
	bodies := p.bodies
	if in := r.corpus(); bodies == nil && in.readsBodies() {
		var err error
		if bodies, err = buildBodies(ctx, in); err != nil {
			p.Close()
			return false, err
		}
	}
	r.bodies.Store(bodies)
	p.done = true
	r.idx, r.scorer, r.phrases = p.idx, p.scorer, p.phrases
	r.info.Index, r.info.Path, r.info.Prepared, r.info.Reason = IndexCacheHit, p.path, true, p.reason
	return true, nil
}
