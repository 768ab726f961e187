package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/router"
)

var routeSkillTool = &toolDef{
	name:  toolRouteSkill,
	title: "Route a request to skills",
	desc: "Find which skills fit a request: pass the user's request as text and get a short list of skill names, best first, with the words that matched. " +
		"The sure matches come first: a trigger phrase hit, or a skill the request names (\"; name\"). After them, up to the limit, come relaxed runners-up, each line ending in \"; relaxed\": skills whose name, description or instructions share the request's words, for you to choose among when the first does not fit what the user asked. " +
		"Call it first when you do not know which skill applies, then load the one you pick with get_skill. A relaxed one is a guess: confirm it with the user first (pass tier \"relaxed\" to fill_skill).",
	params: []paramDef{
		{name: "text", kind: "string", required: true, desc: "the request to route, in the user's words"},
		{name: "mode", kind: "string", enum: []string{string(router.Ranked), string(router.Spec)},
			desc: `"ranked" (default: stemmed phrase matching, relevance tie-breaks, relaxed matches when no phrase hits) or "spec" (exact agent3md/1 trigger matching)`},
		{name: "limit", kind: "integer", desc: "at most this many matches; 0 means all; absent means 3 in ranked mode (the sure matches, then relaxed runners-up) and all in spec mode, as many as fit in 40,000 characters"},
	},
	output:  json.RawMessage(`{"type":"object","properties":{"matches":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"z":{"type":"number"},"score":{"type":"integer"},"relevance":{"type":"number"},"hits":{"type":"array","items":{"type":"string"}},"tier":{"type":"string","enum":["phrase","name","relaxed"]},"inputs":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"type":{"type":"string"},"required":{"type":"boolean"}},"required":["name","type","required"]}},"cost":{"type":["string","null"]},"confirm":{"type":"boolean"}},"required":["name","z","score","relevance","hits","tier","inputs","cost","confirm"]}}},"required":["matches"]}`),
	bigHint: hint("pass a smaller limit"),
	run:     (*server).routeSkill,
}

// routeMatch is one structured route_skill match (newRouteMatch; written
// by hand by appendRouteMatch): what the router found,
// then what a model needs to go on without another call (the skill's
// inputs for fill_skill, its cost tag) and whether to ask the user before
// running it (a cost tag, or a relaxed match).
type routeMatch struct {
	Name      string         `json:"name"`
	Z         float64        `json:"z"`
	Score     int            `json:"score"`
	Relevance float64        `json:"relevance"`
	Hits      []string       `json:"hits"`
	Tier      string         `json:"tier"`
	Inputs    []catalogInput `json:"inputs"`
	Cost      *string        `json:"cost"`
	Confirm   bool           `json:"confirm"`
}

func (s *server) routeSkill(ctx context.Context, v *generation, args map[string]json.RawMessage) (*toolOutcome, error) {
	text := stringArg(args, "text")
	if strings.TrimSpace(text) == "" {
		return &toolOutcome{text: `argument "text" is empty: pass the request to route, in the user's words`, isError: true}, nil
	}
	q := &router.Query{Mode: router.Ranked}
	if m := stringArg(args, "mode"); m != "" {
		q.Mode = router.Mode(m)
	}
	if q.Mode == router.Ranked {
		// A model wants the few best skills, not every skill that shares a
		// word with the request: on a 100,000-skill agent "all" is
		// megabytes. Spec mode keeps the reference's "all matches".
		q.Limit = router.DefaultLimit
	}
	raw, explicit := args["limit"]
	if explicit = explicit && string(raw) != "null"; explicit {
		if err := json.Unmarshal(raw, &q.Limit); err != nil {
			return nil, fmt.Errorf("reading limit: %w", err)
		}
	}
	r, err := v.routing.wait(ctx)
	if err != nil {
		return nil, err
	}
	matches, err := r.Route(ctx, text, q)
	if err != nil {
		return nil, err
	}
	found := len(matches)
	if !explicit { // a default answer: what fits a host (spec mode is "all")
		matches = fitRoute(v, matches)
	}
	text, size := routeText(matches)
	structured := structuredWriter{size: size, append: func(b []byte) []byte {
		b = append(b, `{"matches":[`...)
		for i := range matches {
			if i > 0 {
				b = append(b, ',')
			}
			// nil only if the router named a z the catalog lacks: they
			// come from one generation, so it is not expected.
			sk, _ := v.agent.SkillByZ(matches[i].Z)
			b = appendRouteMatchTail(b, &matches[i], v.tails.tail(sk), sk != nil && sk.Cost != "")
		}
		return append(b, "]}"...)
	}}
	out := &toolOutcome{text: text, structured: structured}
	if len(matches) < found {
		out.extra = []string{fmt.Sprintf("The first %d of %d matches, to keep this answer under %d characters: pass limit to get more (0 for all).",
			len(matches), found, hostAnswerChars)}
	}
	return out, nil
}

// routeNoteChars is what a cut route answer keeps free for its note.
const routeNoteChars = 256

// fitRoute keeps the matches whose lines and structured entries fit
// hostAnswerChars, at least one: a default route answer is ten ranked
// matches, far below it, but spec mode answers every match, and a skill's
// trigger phrases and inputs may be long.
func fitRoute(v *generation, matches []router.Match) []router.Match {
	used := len(`{"matches":[]}`) + routeNoteChars
	for i := range matches {
		m := &matches[i]
		sk, _ := v.agent.SkillByZ(m.Z)
		// The line, "name  (score N; matched: a, b; relaxed)", and the
		// entry beside its tail: keys, numbers and the tier.
		n := 2*jsonChars(m.Name) + 160 + len(v.tails.tail(sk))
		for _, h := range m.Hits {
			n += 2*jsonChars(h) + 3
		}
		if i > 0 && used+n > hostAnswerChars {
			return matches[:i]
		}
		used += n
	}
	return matches
}

// jsonChars bounds the length of s as a JSON string, quotes included.
func jsonChars(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			n++
		case c < 0x20:
			n += 5
		}
	}
	return n
}

// newRouteMatch is what route_skill says of match m of skill sk (nil when
// the catalog has no skill at m's z): the router's findings, the skill's
// inputs and cost tag, and whether to confirm before running it.
func newRouteMatch(m *router.Match, sk *agentfile.Skill) routeMatch {
	rm := routeMatch{Name: m.Name, Z: m.Z, Score: m.Score, Relevance: m.Relevance, Hits: nonNil(m.Hits), Tier: m.Tier, Inputs: []catalogInput{}}
	if sk != nil {
		for _, in := range sk.Inputs {
			rm.Inputs = append(rm.Inputs, catalogInput{Name: in.Name, Type: in.Type, Required: !in.Optional})
		}
		if sk.Cost != "" {
			cost := sk.Cost
			rm.Cost = &cost
		}
	}
	rm.Confirm = rm.Cost != nil || m.Tier == router.TierRelaxed
	return rm
}

// appendRouteMatch writes newRouteMatch(m, sk) as encoding/json would
// (compact, HTML escaping off), by hand and without building it: a route
// is the request an agent repeats most, and reflection over its matches
// cost as much as routing a small agent (jsonappend_test.go compares).
func appendRouteMatch(b []byte, m *router.Match, sk *agentfile.Skill) []byte {
	return appendRouteMatchTail(b, m, appendRouteTail(nil, sk), sk != nil && sk.Cost != "")
}

// appendRouteMatchTail is appendRouteMatch with the part that depends on
// the skill alone (appendRouteTail) written already, and whether the
// skill has a cost tag.
func appendRouteMatchTail(b []byte, m *router.Match, tail []byte, cost bool) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, m.Name)
	b = append(b, `,"z":`...)
	b = appendJSONFloat(b, m.Z)
	b = append(b, `,"score":`...)
	b = strconv.AppendInt(b, int64(m.Score), 10)
	b = append(b, `,"relevance":`...)
	b = appendJSONFloat(b, m.Relevance)
	b = append(b, `,"hits":`...)
	b = appendJSONStrings(b, m.Hits)
	b = append(b, `,"tier":`...)
	b = appendJSONString(b, m.Tier)
	b = append(b, tail...)
	b = append(b, `,"confirm":`...)
	b = strconv.AppendBool(b, cost || m.Tier == router.TierRelaxed)
	return append(b, '}')
}

// appendRouteTail writes the end of a route match that depends on skill
// sk alone (nil: none): its inputs and its cost tag.
func appendRouteTail(b []byte, sk *agentfile.Skill) []byte {
	b = append(b, `,"inputs":[`...)
	if sk != nil {
		for k, in := range sk.Inputs {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendJSONString(b, in.Name)
			b = append(b, `,"type":`...)
			b = appendJSONString(b, in.Type)
			b = append(b, `,"required":`...)
			b = strconv.AppendBool(b, !in.Optional)
			b = append(b, '}')
		}
	}
	b = append(b, `],"cost":`...)
	if sk != nil && sk.Cost != "" {
		return appendJSONString(b, sk.Cost)
	}
	return append(b, "null"...)
}

// routeTails keeps each skill's route-match tail (appendRouteTail) for
// one generation of the agent: a small agent's routes name the same few
// skills call after call, and their inputs were most of what encoding a
// match cost. At most maxRouteTails are kept, so a huge agent's routes
// cannot grow it without bound; past that, tails are written each time.
type routeTails struct {
	m sync.Map // *agentfile.Skill -> []byte
	n atomic.Int32
}

// maxRouteTails bounds the tails one generation keeps (a few hundred bytes
// each at most for ordinary skills).
const maxRouteTails = 4096

// tail returns sk's route-match tail, written once per generation.
func (rt *routeTails) tail(sk *agentfile.Skill) []byte {
	if sk == nil {
		return appendRouteTail(nil, nil)
	}
	if t, ok := rt.m.Load(sk); ok {
		return t.([]byte)
	}
	t := appendRouteTail(nil, sk)
	if rt.n.Load() < maxRouteTails {
		if _, loaded := rt.m.LoadOrStore(sk, t); !loaded {
			rt.n.Add(1)
		}
	}
	return t
}
