package router

import (
	"context"
	"errors"
)

// ErrNotImplemented is temporary scaffolding while the package is built.
var ErrNotImplemented = errors.New("router: not implemented yet")

// Mode selects how Route scores.
type Mode string

const (
	// Ranked (the default) lifts phrase matching to stems, breaks ties by
	// bleve relevance and falls back to relaxed matches.
	Ranked Mode = "ranked"
	// Spec is exactly agent3md/1 route: the compatibility contract.
	Spec Mode = "spec"
)

// Tier says how a match was found.
const (
	TierPhrase  = "phrase"
	TierRelaxed = "relaxed"
)

// Skill is what the router indexes about one skill. The router does not
// import agentfile or loader: callers map their skills to this.
type Skill struct {
	Name        string
	Z           float64
	Triggers    []string
	Description string
	Tool        string   // command template; its first word is the binary
	Inputs      []string // input names
}

// Options configures New. A nil *Options means defaults.
type Options struct {
	// ContentHash identifies the agent file's content (hex SHA-256); with
	// it, large agents get an on-disk index cache keyed by it.
	ContentHash string
	// CacheDir is where cached indexes live (default
	// $XDG_CACHE_HOME/agent3md, else ~/.cache/agent3md).
	CacheDir string
	// NoCache disables the on-disk cache.
	NoCache bool
	// MemoryThreshold is the skill count up to which the index is built in
	// memory and never cached (default 2,000).
	MemoryThreshold int
}

// Query refines one Route call. A nil *Query means defaults.
type Query struct {
	Mode  Mode // default Ranked
	Limit int  // at most this many matches; 0 means all
}

// Match is one routed skill with the evidence for it.
type Match struct {
	Name      string   `json:"name"`
	Z         float64  `json:"z"`
	Score     int      `json:"score"`     // trigger phrases hit
	Relevance float64  `json:"relevance"` // bleve relevance (0 in spec mode)
	Hits      []string `json:"hits"`      // phrases (or, relaxed, terms) that matched
	Tier      string   `json:"tier"`
}

// Router routes request text to skills. Safe for concurrent use.
type Router struct{}

// New builds (or reopens from cache) the index over skills.
func New(ctx context.Context, skills []Skill, opts *Options) (*Router, error) {
	return nil, ErrNotImplemented
}

// Route scores text against the skills; no hit = empty slice.
func (r *Router) Route(ctx context.Context, text string, q *Query) ([]Match, error) {
	return nil, ErrNotImplemented
}

// Close releases the index. It is idempotent.
func (r *Router) Close() error { return nil }
