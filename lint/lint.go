package lint

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/agent3md/agent3md/router"
)

// Rule names of the findings (docs/format.md §12). All are warnings.
const (
	// RuleCompeting: routing a skill's description, another skill comes
	// first or ties with it.
	RuleCompeting = "competing-skills"
	// RuleSharedTrigger: routing one of a skill's trigger phrases, another
	// skill matches it as surely and comes first or ties.
	RuleSharedTrigger = "shared-trigger"
	// RuleEverydayTrigger: a trigger phrase made only of everyday words.
	RuleEverydayTrigger = "everyday-trigger"
	// RuleDescriptionWhen: a skill without triggers whose description
	// never says when to use it.
	RuleDescriptionWhen = "description-when"
)

// Rules lists the rule names, in the order the docs give them.
func Rules() []string {
	return []string{RuleCompeting, RuleSharedTrigger, RuleEverydayTrigger, RuleDescriptionWhen}
}

// SkillText is what the lints read of one skill (its name, description
// and triggers), and where a finding about it points.
type SkillText struct {
	Name        string
	Description string
	Triggers    []string
	// File is the file the skill is written in; Line the line a finding
	// about the skill as a whole points at (its @plane directive, or its
	// SKILL.md description), TriggersLine the line of its triggers.
	File               string
	Line, TriggersLine int
	// Z is the skill's plane position in an agent file (nil in folders).
	Z *float64
}

// Finding is one warning.
type Finding struct {
	Rule    string
	Skill   string
	Other   string // the competing skill, when there is one
	File    string
	Line    int
	Z       *float64
	Message string
}

// RouteFunc routes one request as route_skill does (mcp.RouteQuery).
type RouteFunc func(ctx context.Context, text string) ([]router.Match, error)

// Options configures Check. A nil *Options means defaults.
type Options struct {
	// Close is how near a sure runner-up's relevance must come to the
	// first sure match's, as a share of it, to count as a tie when both
	// hit as many trigger phrases (default DefaultClose).
	Close float64
	// Workers is how many routes run at once (default GOMAXPROCS).
	Workers int
}

// DefaultClose: a runner-up within 10% of the first's relevance ties it.
// Below that the ranking keeps them apart on every wording near the
// description; at it, a word more or less in the request swaps them.
const DefaultClose = 0.9

// Check runs every lint over skills. route must route over exactly these
// skills (and may know more: the identity, say).
func Check(ctx context.Context, skills []SkillText, route RouteFunc, o *Options) ([]Finding, error) {
	var opt Options
	if o != nil {
		opt = *o
	}
	if opt.Close <= 0 || opt.Close > 1 {
		opt.Close = DefaultClose
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	var out []Finding
	for i := range skills {
		out = append(out, everyday(&skills[i])...)
		if f, ok := describesWhen(&skills[i]); !ok {
			out = append(out, f)
		}
	}
	comp, err := compete(ctx, skills, route, &opt)
	if err != nil {
		return nil, err
	}
	return append(out, comp...), nil
}

// probe is one text routed for one skill: its description (trigger
// "") or one of its triggers.
type probe struct {
	skill   int
	trigger string
	text    string
}

// compete routes every probe and reports the pairs it cannot keep apart,
// each pair (and, for triggers, each phrase) once, on the skill whose
// probe lost, in skill order.
func compete(ctx context.Context, skills []SkillText, route RouteFunc, opt *Options) ([]Finding, error) {
	var probes []probe
	for i := range skills {
		if d := strings.TrimSpace(skills[i].Description); d != "" {
			probes = append(probes, probe{skill: i, text: d})
		}
		for _, t := range skills[i].Triggers {
			probes = append(probes, probe{skill: i, trigger: t, text: t})
		}
	}
	found := make([]*Finding, len(probes))
	err := parallel(ctx, len(probes), opt.Workers, func(ctx context.Context, k int) error {
		ms, err := route(ctx, probes[k].text)
		if err != nil {
			return fmt.Errorf("routing %s of %q: %w", probeWhat(probes[k]), skills[probes[k].skill].Name, err)
		}
		found[k] = judge(&skills[probes[k].skill], probes[k], ms, opt.Close)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Finding
	seen := map[string]bool{}
	for _, f := range found {
		if f == nil {
			continue
		}
		a, b := f.Skill, f.Other
		if b < a {
			a, b = b, a
		}
		key := f.Rule + "\x00" + a + "\x00" + b
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, *f)
	}
	return out, nil
}

func probeWhat(p probe) string {
	if p.trigger == "" {
		return "the description"
	}
	return fmt.Sprintf("trigger %q", p.trigger)
}

// parallel runs fn(0..n-1) on workers goroutines; the first error wins.
func parallel(ctx context.Context, n, workers int, fn func(context.Context, int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		next     int
		firstErr error
		wg       sync.WaitGroup
	)
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				k := next
				next++
				mu.Unlock()
				if k >= n || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, k); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// sure reports a match a trigger phrase or the skill's name earned. A
// described match (sure, but from the words of a description) is read
// with the relaxed ones here: a probe is a description, so what matters
// is how the descriptions' words tell skills apart.
func sure(m *router.Match) bool { return m.Tier == router.TierPhrase || m.Tier == router.TierName }

// ranked drops the runner-ups from a route answer: they are what a plain
// search over names and descriptions ranks next, offered to every request
// whatever its evidence, so they make no competitor.
func ranked(ms []router.Match) []router.Match {
	for i := range ms {
		if ms[i].Tier == router.TierRunnerUp {
			return ms[:i]
		}
	}
	return ms
}

// judge reads the answer to one probe of skill s: another skill first, or
// one tied with s, makes a finding.
func judge(s *SkillText, p probe, ms []router.Match, close float64) *Finding {
	ms = ranked(ms)
	if len(ms) == 0 {
		return nil
	}
	rank := 0
	for i := range ms {
		if ms[i].Name == s.Name {
			rank = i + 1
			break
		}
	}
	var rival *router.Match
	switch {
	case rank != 1:
		rival = &ms[0]
	case len(ms) > 1 && tied(&ms[0], &ms[1], close):
		rival = &ms[1]
	default:
		return nil
	}
	if p.trigger != "" {
		// A trigger probe hits s's own phrase surely: only a rival as
		// sure is a clash; a relaxed one comes below it.
		if !sure(rival) || (rank == 1 && rival.Score < ms[0].Score) {
			return nil
		}
		return sharedTrigger(s, p.trigger, rival, rank)
	}
	return competing(s, rival, rank)
}

// tied reports two matches the ranking barely tells apart. Two matches
// on description words (relaxed or described) tie whenever route_skill
// shows both: the router offers the second (it keeps only relaxed
// matches within router.DefaultRelaxedThreshold of the best) as a
// candidate for the very text of the first skill's description, so a paraphrase of it can go either way; on three public
// collections of Agent Skills (router/testdata/folders, 157 skills) no
// description draws a runner-up but a near twin. Two sure matches tie
// with one trigger score and relevance within close of each other (or
// no relevance at all, which a phrase match alone in its tier has).
func tied(a, b *router.Match, close float64) bool {
	if sure(a) != sure(b) || a.Score != b.Score {
		return false
	}
	if !sure(a) || a.Relevance == 0 {
		return !sure(a) || b.Relevance == 0
	}
	return b.Relevance >= close*a.Relevance
}

func tierWord(m *router.Match) string {
	if sure(m) {
		return "sure"
	}
	return m.Tier
}

func place(rank int) string {
	switch rank {
	case 0:
		return "not in the top 3"
	case 1:
		return "tied with it"
	case 2:
		return "2nd"
	}
	return "3rd"
}

func competing(s *SkillText, rival *router.Match, rank int) *Finding {
	how := fmt.Sprintf("routing %q's own description, %q comes first (%q is %s", s.Name, rival.Name, s.Name, place(rank))
	if rank == 1 {
		how = fmt.Sprintf("routing %q's own description, route_skill offers %q beside it (a %s match too", s.Name, rival.Name, tierWord(rival))
	}
	if len(rival.Hits) > 0 {
		how += "; it matched " + quoteList(rival.Hits, 4)
	}
	how += ")"
	return &Finding{Rule: RuleCompeting, Skill: s.Name, Other: rival.Name, File: s.File, Line: s.Line, Z: s.Z,
		Message: fmt.Sprintf("skills %q and %q compete: %s, so a request worded like it may reach either. "+
			"Say in %q's description what only it handles (the objects, inputs or situation that set it apart from %q), or give it a trigger phrase %q lacks",
			s.Name, rival.Name, how, s.Name, rival.Name, rival.Name)}
}

func sharedTrigger(s *SkillText, trigger string, rival *router.Match, rank int) *Finding {
	line := s.TriggersLine
	if line == 0 {
		line = s.Line
	}
	how := "comes first"
	if rank == 1 {
		how = "ties with it"
	}
	return &Finding{Rule: RuleSharedTrigger, Skill: s.Name, Other: rival.Name, File: s.File, Line: line, Z: s.Z,
		Message: fmt.Sprintf("trigger %q of %q also fires %q (matched %s), which %s: a request with these words may reach either. "+
			"Make the phrase say what only %q does, or drop it from one of them",
			trigger, s.Name, rival.Name, quoteList(rival.Hits, 4), how, s.Name)}
}

func quoteList(hs []string, n int) string {
	q := make([]string, 0, min(len(hs), n)+1)
	for _, h := range hs[:min(len(hs), n)] {
		q = append(q, fmt.Sprintf("%q", h))
	}
	if len(hs) > n {
		q = append(q, "…")
	}
	return strings.Join(q, ", ")
}
