package router

import "testing"

// blindSets are the held-out sets written blind and committed before any
// run (2026-11-27): their misses are never logged, so nobody tunes on
// them; only their totals are read.
var blindSets = map[string]bool{
	"routing-blind5.json":         true,
	"routing-kefu-blind2.json":    true,
	"routing-folders-blind2.json": true,
	"routing-blind6.json":         true,
	"routing-kefu-blind3.json":    true,
	// Round 3 (issue 33), committed before any run (52eccb3).
	"routing-folders-blind3.json": true,
	"routing-kefu-blind4.json":    true,
	"routing-blind7.json":         true,
	// Round 4 (issue 33), committed before any run (331b5e0).
	"routing-folders-blind4.json": true,
	"routing-kefu-blind5.json":    true,
	// Round 5 (issue 33), committed before any run (ef26db8).
	"routing-folders-blind5.json": true,
	"routing-kefu-blind6.json":    true,
}

// bars are a set's measured figures, held exactly: at least top1 and
// top3 positive cases right in ranked mode, at most falseMatches
// irrelevant ones drawing a match.
type bars struct{ top1, top3, falseMatches int }

// holdBars routes testdata/<file> and holds ranked mode to b, logging
// both modes' totals (a blind set's cases are never logged: blindSets).
func holdBars(t *testing.T, name, file string, b bars) {
	t.Helper()
	total := evalSet(t, file)
	if total == nil {
		return
	}
	r := total[Ranked]
	if r.top1 < b.top1 || r.top3 < b.top3 {
		t.Errorf("%s: ranked top-1 %d/%d, top-3 %d/%d, below the %d and %d measured", name, r.top1, r.pos, r.top3, r.pos, b.top1, b.top3)
	}
	if r.falseMatch > b.falseMatches {
		t.Errorf("%s: %d/%d irrelevant requests drew a match, above the %d measured", name, r.falseMatch, r.neg, b.falseMatches)
	}
}

// The three blind sets of 2026-11-27 (issue 24) were written by a helper
// that saw only each skill's name and one-line purpose, committed before
// any run (e623ff8), measured once before the changes and once
// after them, and never read in between; their misses are never logged
// (blindSets). Their bars are the figures measured after, held exactly:
//
//	set                          before: top-1  top-3  false     after: top-1  top-3  false
//	routing-blind5.json          147/180  153/180  8/48             147/180  158/180  10/48
//	routing-kefu-blind2.json      42/48    43/48   3/15              40/48    42/48   3/15
//	routing-folders-blind2.json  192/211  195/211  3/30             192/211  195/211  3/30
//
// Routing round 2 (after the body index's Chinese pairs, the informative
// partial phrases and the 1.5 weight of rare body words) moved blind5 to
// 9/48 false and kefu-blind2 to 41/48 top-1; the bars hold those.
//
// The second round's sets (e021887), measured once before round 2 and
// once after it, did not move:
//
//	set                          before: top-1  top-3  false     after: top-1  top-3  false
//	routing-blind6.json          113/135  122/135  12/36            113/135  122/135  12/36
//	routing-kefu-blind3.json      34/40    36/40   1/12              34/40    36/40   1/12
//
// Routing round 3's Chinese character pairs (runnersup.go) moved kefu-blind2
// to 45/48 top-1, 48/48 top-3 and kefu-blind3 to 38/40 and 40/40; the
// bars hold those. Round 3's engine moved blind5 to 151/180 and 168/180
// and blind6 to 117/135 and 128/135; the relevance fill (relevanceFill, runnersup.go) to
// 152 and 171, and 118 and 129, and the conditional clause
// (conditionClause) kefu-blind2 to 46/48 top-1, which the bars hold. The
// trigger revision of kefu.3md against routing-kefu-dev3.json moved
// kefu-blind2 to 48/48 top-1 and 4/15 false matches (one more relaxed
// guess on a near miss); the bars hold those.
//
// None reaches the targets (95% top-1, 98% top-3, 10% false
// matches; 85% top-1 for the Chinese set): testdata/README.md says by how
// far and what the misses have in common.

// TestRoutingBlind5 routes the sixth held-out set over the example agents
// (testdata/routing-blind5.json): 180 requests, four for each of the 45
// skills, and 48 irrelevant ones (16 near misses, marked).
func TestRoutingBlind5(t *testing.T) {
	holdBars(t, "blind5 held-out", "routing-blind5.json", bars{top1: 152, top3: 171, falseMatches: 9})
}

// TestRoutingKefuBlind2 routes the second held-out set of the Chinese
// agent (testdata/routing-kefu-blind2.json): 48 requests, six per skill,
// about one in six in traditional characters, and 15 irrelevant ones (5
// near misses).
func TestRoutingKefuBlind2(t *testing.T) {
	holdBars(t, "kefu blind2 held-out", "routing-kefu-blind2.json", bars{top1: 48, top3: 48, falseMatches: 4})
}

// TestRoutingBlind6 routes the second round's held-out set over the four
// English example agents (testdata/routing-blind6.json): 135 requests and
// 36 irrelevant ones (12 near misses).
func TestRoutingBlind6(t *testing.T) {
	holdBars(t, "blind6 held-out", "routing-blind6.json", bars{top1: 118, top3: 129, falseMatches: 12})
}

// TestRoutingKefuBlind3 routes the second round's held-out set of the
// Chinese agent (testdata/routing-kefu-blind3.json): 40 requests and 12
// irrelevant ones (4 near misses).
func TestRoutingKefuBlind3(t *testing.T) {
	holdBars(t, "kefu blind3 held-out", "routing-kefu-blind3.json", bars{top1: 38, top3: 40, falseMatches: 1})
}
