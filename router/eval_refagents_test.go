package router

import "testing"

// TestRoutingRefAgentsDev routes testdata/routing-refagents-dev.json over
// the three example agents of the reference implementation
// (testdata/refagents/README.md): agents whose trigger lists someone else
// wrote, the one case the other sets do not cover.
func TestRoutingRefAgentsDev(t *testing.T) {
	holdWithCeiling(t, "reference agents, dev", "routing-refagents-dev.json", refDevMinTop1, refDevMaxFalse)
}

// TestRoutingRefAgentsHoldout routes the held-out set over the same agents
// (testdata/routing-refagents-holdout.json). Its misses are not to be read
// when changing routing: only its totals.
func TestRoutingRefAgentsHoldout(t *testing.T) {
	holdWithCeiling(t, "reference agents, held-out", "routing-refagents-holdout.json", refHoldoutMinTop1, refHoldoutMaxFalse)
}

// The floors and ceilings below were set from one run, made after both sets
// were committed (written blind to the trigger lists, from each skill's
// name, body and tool) and before any routing change was measured on them:
//
//	dev:      ranked top-1 87.1% (54/62), false 66.7% (10/15);
//	          spec   top-1 77.4% (48/62), false 66.7% (10/15)
//	held-out: ranked top-1 78.3% (47/60), false 80.0% (12/15);
//	          spec   top-1 66.7% (40/60), false 60.0% (9/15)
//
// The false-match rates are far above the 10% bar the other sets hold to
// because these agents' trigger lists hold single everyday words (the dev
// set's near misses "scale this recipe", "push the meeting to Thursday",
// "reply to my mom's text" each contain one): a trigger said in a request
// is a phrase match in both modes, so the near misses match as specified.
// Ceilings just above the measured rates keep a rule that lets more
// through from landing unnoticed; floors a few points under the measured
// top-1 rates catch a drop.
//
// Since then the dev set has been tuned on: typing slips ("atest",
// "isue") and the one-word-name rule took it to 93.5% (58/62); the floor
// follows. The held-out set was read again only for its totals: 78.3%
// throughout.
const (
	refDevMinTop1      = 0.90
	refDevMaxFalse     = 0.70
	refHoldoutMinTop1  = 0.75
	refHoldoutMaxFalse = 0.85
)
