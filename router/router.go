package router

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/segment"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/agent3md/agent3md/internal/slips"
)

// ErrClosed is returned by Route after Close.
var ErrClosed = errors.New("router: routing on a closed router")

// Mode selects how Route scores.
type Mode string

const (
	// Ranked (the default) lifts phrase matching to stems, breaks ties by
	// relevance and falls back to relaxed matches.
	Ranked Mode = "ranked"
	// Spec is exactly agent3md/1 route: the compatibility contract.
	Spec Mode = "spec"
)

// Tier says how a match was found.
const (
	TierPhrase  = "phrase"
	TierRelaxed = "relaxed"
	// TierName marks a Ranked match the request names, no phrase hit: it
	// is made of the name's words alone ("tests" for run-tests), or says
	// the skill's command ("csvlook events.csv").
	TierName = "name"
)

// Defaults for Options fields.
const (
	// DefaultMemoryThreshold is the skill count up to which the index lives
	// in memory only; above it the cache pays (reopening takes a few ms).
	DefaultMemoryThreshold = 500
	// DefaultRelaxedThreshold is the least relevance a relaxed match
	// needs, as a fraction of the best relaxed match's.
	DefaultRelaxedThreshold = 0.5
	// DefaultRelaxedEvidence is the least evidence a relaxed match needs:
	// the summed field weights of the request terms it holds (trigger 3,
	// name or command 2, description 1, input name 0.5).
	DefaultRelaxedEvidence = 3
	// DefaultRelaxedEvidenceUntriggered is the bar for a skill without
	// triggers (most skills folders): two description words are as much
	// as a short request can show of it.
	DefaultRelaxedEvidenceUntriggered = 2
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
	Body        string   // instructions, read only while an index is built (Bodies)
}

// Source gives a Router its skills by position, without a second copy
// (at 100,000 skills a []Skill is ~13 MB). Its methods must be cheap,
// safe for concurrent use, and stable for the Source's life.
type Source interface {
	Len() int
	// Skill returns all of skill i: for every skill when an index is
	// built or checked, and for relaxed candidates.
	Skill(i int) Skill
	// Phrases returns skill i's name, z and trigger phrases, once per
	// match (thousands per route at 100,000 skills): touch little memory.
	Phrases(i int) (name string, z float64, triggers []string)
}

// Skills is a Source over a slice.
type Skills []Skill

func (s Skills) Len() int          { return len(s) }
func (s Skills) Skill(i int) Skill { return s[i] }
func (s Skills) Phrases(i int) (string, float64, []string) {
	k := &s[i]
	return k.Name, k.Z, k.Triggers
}

// Options configures New. A nil *Options means defaults.
type Options struct {
	// ContentHash identifies the agent file's content (hex SHA-256);
	// with it, large agents get an on-disk index cache keyed by it.
	ContentHash string
	// CacheDir is where cached indexes live (default
	// $XDG_CACHE_HOME/agent3md, else ~/.cache/agent3md).
	CacheDir string
	NoCache  bool
	// MemoryThreshold is the skill count up to which the index is built
	// in memory and never cached (default DefaultMemoryThreshold;
	// negative: always the cache when one is configured).
	MemoryThreshold int
	// The relaxed tier's bars (defaults DefaultRelaxedThreshold,
	// DefaultRelaxedEvidence, DefaultRelaxedEvidenceUntriggered).
	RelaxedThreshold, RelaxedEvidence, RelaxedEvidenceUntriggered float64
	// BodyTerms is the most distinct terms of one body the index keeps,
	// when the Source implements Bodies (default DefaultBodyTerms;
	// negative: bodies are not read).
	BodyTerms int
	// Progress, when set, is called as a build proceeds with the number
	// of skills indexed so far and the total.
	Progress func(done, total int)
	// Prepared is a cache entry opened ahead of the skills (Prepare), New
	// adopts it when built from exactly these skills, else closes it.
	Prepared *Prepared
	// Background lets New return before the bleve index is built when
	// there is none to open and the agent has at most 25,000 skills:
	// routes answer as after the build, but without relaxed matches
	// after sure ones; a request that needs the relaxed tier waits. The
	// build starts after the first route (30 ms at most); ctx governs it,
	// Close and Wait wait for it, Info says IndexBuilding until it ends.
	Background bool

	holdBuild chan struct{} // tests: a background build starts once it is closed
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	v.MemoryThreshold = cmp.Or(v.MemoryThreshold, DefaultMemoryThreshold)
	v.RelaxedThreshold = cmp.Or(v.RelaxedThreshold, DefaultRelaxedThreshold)
	v.RelaxedEvidence = cmp.Or(v.RelaxedEvidence, DefaultRelaxedEvidence)
	v.RelaxedEvidenceUntriggered = cmp.Or(v.RelaxedEvidenceUntriggered, DefaultRelaxedEvidenceUntriggered)
	v.BodyTerms = cmp.Or(v.BodyTerms, DefaultBodyTerms)
	return v
}

// Query refines one Route call. A nil *Query means defaults.
type Query struct {
	Mode Mode // default Ranked
	// Limit is the most matches returned. 0 means every phrase match (in
	// Ranked mode, and name match), then relaxed ones up to 10 matches in
	// all. Callers that answer a person or a model pass DefaultLimit.
	Limit int
}

// DefaultLimit is the limit of a Ranked answer that asks for none
// (route_skill, `agent3md route`): sure, relaxed, then runner-ups, five
// in all. A model reads it on every request, so it stays under ~600
// characters (TestRoutingBaseline logs the lengths).
const DefaultLimit = 5

// Match is one routed skill with the evidence for it.
type Match struct {
	Name      string   `json:"name"`
	Z         float64  `json:"z"`
	Score     int      `json:"score"`     // trigger phrases hit
	Relevance float64  `json:"relevance"` // BM25, where it decided the order; else 0
	Hits      []string `json:"hits"`      // phrases (or, relaxed, terms) that matched
	Tier      string   `json:"tier"`
	// Fit is how much of the request the match holds, 0 to 1: 1 when
	// sure, else the idf-weighed share of the request's words its name
	// and description hold (plainBM25.fit). 0 in Spec mode.
	Fit float64 `json:"fit,omitempty"`
}

// Index kinds reported by Info.
const (
	IndexNone       = "none"        // no skills, nothing to index
	IndexMemory     = "memory"      // built in memory
	IndexCacheHit   = "cache-hit"   // reopened from the on-disk cache
	IndexCacheBuilt = "cache-built" // built into the on-disk cache now
	IndexTemp       = "temp"        // built on disk outside the cache; removed on Close
)

// Info describes how a Router got its index, for logging.
type Info struct {
	Index  string `json:"index"`          // one of the Index* kinds
	Skills int    `json:"skills"`         // skills indexed
	Path   string `json:"path,omitempty"` // cache entry, when on disk
	// Took is the build or open time; while the index builds in the
	// background, the time until the Router could route.
	Took     time.Duration `json:"took"`
	Reason   string        `json:"reason,omitempty"`   // why the cache was not used or was rebuilt
	Prepared bool          `json:"prepared,omitempty"` // an Options.Prepared entry was adopted
}

// Router routes request text to skills. It is safe for concurrent use;
// Close waits for routes in flight.
type Router struct {
	src     Source
	phrases *phraseIndex
	zRank   []uint32                  // each skill's position in (z, name, index) order
	idx     bleve.Index               // nil when there are no skills
	bodies  atomic.Pointer[bodyIndex] // nil without bodies, and while a background build runs
	scorer  *termStats                // what relevance is computed from; nil with idx
	late    *pendingIndex             // idx while it builds in the background; else nil
	mapping mapping.IndexMapping
	an      *analyzers
	opts    Options
	info    Info
	cleanup func() // removes a temp index after Close

	// Built on first use, each by the accessor named beside it.
	specOnce   sync.Once
	spec       *specifics // see specificsOf
	spellOnce  sync.Once
	speller    *slips.Speller // see spellerOf
	segOnce    sync.Once
	seg        *segmenter // see segmenterOf
	pairsOnce  sync.Once
	pairs      *pairBook // see pairsOf
	plainOnce  sync.Once
	plain      *plainBM25 // see plainIndex
	plainBuilt atomic.Bool
	hanOnce    sync.Once
	han        int8 // see hanScriptOf
	gramsOnce  sync.Once
	grams      *charGrams                    // see charGramsOf
	fieldCache fieldTermCache                // see fieldTerms
	held       atomic.Pointer[heldThesaurus] // see heldThesaurus

	tallies sync.Pool     // *hitTally scratch for routes
	slots   chan struct{} // one per route running at once

	mu     sync.RWMutex
	closed bool
}

// New builds (or reopens from cache) the index over skills. The Router
// keeps skills and reads them on every Route: do not modify them
// afterwards.
func New(ctx context.Context, skills []Skill, opts *Options) (*Router, error) {
	return NewFrom(ctx, Skills(skills), opts)
}

// NewFrom is New over a Source.
func NewFrom(ctx context.Context, skills Source, opts *Options) (*Router, error) {
	start := time.Now()
	o := opts.withDefaults()
	m, err := newMapping()
	if err != nil {
		return nil, err
	}
	an, err := newAnalyzers(m)
	if err != nil {
		return nil, err
	}
	// Routes are CPU-bound: more at once than there are processors only
	// hold more scratch (800 KB a tally at 100,000 skills), so they queue.
	r := &Router{src: skills, mapping: m, an: an, opts: o, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
	if o.Background {
		// A server's first relaxed route would otherwise parse the
		// thesaurus (a few ms, once per process) while a client waits.
		go thesaurusOnce()
	}
	if skills.Len() <= o.MemoryThreshold {
		// A small agent's plain ranking is built here (a millisecond at
		// 500 skills), so a cold start's first route has runner-ups too;
		// a larger one builds it on first use, or last in the background.
		r.plainIndex()
	}
	if r.deferBuild() {
		if err := r.openEarly(ctx); err != nil {
			return nil, err
		}
		r.info.Skills = skills.Len()
		r.info.Took = time.Since(start)
		r.startBuild(ctx, start)
		return r, nil
	}
	if err := r.openIndex(ctx); err != nil {
		return nil, err
	}
	if r.phrases == nil { // not read from the cache
		r.phrases = buildPhrases(skills)
	}
	r.zRank = zOrder(skills)
	r.info.Skills = skills.Len()
	r.info.Took = time.Since(start)
	return r, nil
}

// Info reports how the index was obtained (IndexBuilding while it builds
// in the background).
func (r *Router) Info() Info {
	if p := r.late; p != nil {
		select {
		case <-p.done:
			return p.info
		default:
		}
	}
	return r.info
}

// Route scores text against the skills; no hit = empty slice. A request
// of more than MaxRequestWords words is refused with an error wrapping
// ErrRequestTooLong, and a cancelled ctx stops the work with ctx's error.
func (r *Router) Route(ctx context.Context, text string, q *Query) ([]Match, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return nil, ErrClosed
	}
	if r.late != nil {
		defer r.late.kick() // a background build waits for the first route
	}
	var qq Query
	if q != nil {
		qq = *q
	}
	if qq.Limit < 0 {
		return nil, fmt.Errorf("router: query limit %d is negative; use 0 for all matches", qq.Limit)
	}
	// A select with both cases ready picks either: a request cancelled
	// before it starts must not start.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkRequest(ctx, text); err != nil {
		return nil, err
	}
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	switch qq.Mode {
	case Spec:
		return r.routeSpec(text, qq.Limit), nil
	case Ranked, "":
		text = r.inAgentScript(text)
		out, err := r.rankedRoute(ctx, text, qq.Limit, true)
		for i := 0; i < len(out) && segment.HasUnspaced(text); i++ { // only unspaced hits join
			out[i].Hits = joinPairs(out[i].Hits, text)
		}
		return out, err
	default:
		return nil, fmt.Errorf("router: unknown mode %q; use %q or %q", qq.Mode, Ranked, Spec)
	}
}

// Close releases the index. It is idempotent.
func (r *Router) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	return closeIndex(r.idx, r.cleanup)
}

// MaxRequestWords is the most words (agent3md/1 tokens) a request to
// Route may hold: a request is what a user asked, not a document, and
// past it Route refuses with ErrRequestTooLong rather than answer part.
const MaxRequestWords = 4096

// ErrRequestTooLong is wrapped by Route's error for a request over MaxRequestWords.
var ErrRequestTooLong = errors.New("request too long to route")

const ctxCheckBytes = 64 << 10 // request bytes scanned between checks of ctx

// checkRequest counts text's words up to the first past MaxRequestWords,
// as the index reads them (bigramSpans: a pair of unspaced characters
// each), so a megabyte of Chinese is refused, not analysed into pairs. A
// text of MaxRequestWords bytes or fewer is not counted: every word
// starts at a byte of its own.
func checkRequest(ctx context.Context, text string) error {
	if len(text) <= MaxRequestWords {
		return nil
	}
	words, err := countTokens(ctx, text, MaxRequestWords)
	if err == nil && words > MaxRequestWords {
		err = fmt.Errorf("router: %w: it has more than %d words (a pair of characters counts as one in Chinese, Japanese and Korean), the most a request may hold; pass the request itself, or a summary of it, not a whole document", ErrRequestTooLong, MaxRequestWords)
	}
	return err
}

// countTokens counts the tokens the index's tokenizer would read in text,
// stopping at the first past most.
func countTokens(ctx context.Context, text string, most int) (int, error) {
	words := 0
	const (
		none = iota // between words
		other
		paired // in a run of an unspaced script
	)
	prev, run := none, 0 // run: the runes of the current unspaced run
	for i, next := 0, ctxCheckBytes; i < len(text); {
		if i >= next {
			if err := ctx.Err(); err != nil {
				return words, err
			}
			next = i + ctxCheckBytes
		}
		kind := none
		size := 1
		if c := text[i]; c < utf8.RuneSelf {
			if asciiWord[c] {
				kind = other
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			switch {
			case !isWordRune(r) || r == utf8.RuneError && size == 1:
			case segment.Unspaced(r):
				kind = paired
			default:
				kind = other
			}
		}
		// A token starts at a word, at a change of script inside one, and
		// at every rune of an unspaced run from its second pair on.
		if kind == paired {
			run++
		} else {
			run = 0
		}
		if kind != none && (kind != prev || run >= 3) {
			if words++; words > most {
				return words, nil
			}
		}
		prev = kind
		i += size
	}
	return words, nil
}

// AppendLine appends m as one line of the reference's route answer,
// "name  (score N; matched: a, b)" (docs/format.md §10), no newline;
// another tier follows inside the parentheses ("; name"), a guess with
// its fit ("; relaxed, fit 40%").
func AppendLine(b []byte, m *Match) []byte {
	b = append(b, m.Name...)
	b = append(b, "  (score "...)
	b = strconv.AppendInt(b, int64(m.Score), 10)
	b = append(b, "; matched: "...)
	for k, h := range m.Hits {
		if k > 0 {
			b = append(b, ", "...)
		}
		b = append(b, h...)
	}
	if m.Tier != TierPhrase && m.Tier != "" {
		b = append(b, "; "...)
		b = append(b, m.Tier...)
	}
	if !Sure(m.Tier) && m.Tier != "" {
		// A guess says how much of the request it holds (Match.Fit).
		b = append(b, ", fit "...)
		b = strconv.AppendInt(b, int64(math.Round(100*m.Fit)), 10)
		b = append(b, '%')
	}
	return append(b, ')')
}
