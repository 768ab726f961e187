package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agent3md/agent3md/router"
)

// routeSkillTool is route_skill. It answers with text alone, as get_skill
// does, and declares no outputSchema: hosts that see structured content
// hand the model that instead of the text, and the lines already say
// which matches are relaxed guesses (docs/protocol.md §4).
var routeSkillTool = newTool[routeSkillInput, textOnly](toolSpec[routeSkillInput]{
	name:  toolRouteSkill,
	title: "Route a request to skills",
	desc: "Find which skills fit a request: pass the user's request as text and get a short list of skill names, best first, with the words that matched. " +
		"The sure matches come first: a trigger phrase hit, a skill the request names (\"; name\"), or one whose description's words it says (\"; described\"). After them, up to the limit, come guesses for you to choose among when the first does not fit: \"; relaxed\" (the skill's name, description or instructions share the request's words) and \"; runner-up\" (what a plain search over names and descriptions ranks next). " +
		"A guess says its fit: the share of the request's words, the rarer ones weighing more, that the skill's name and description hold (fit 80% is most of the request, fit 10% one minor word). " +
		"Call it first when you do not know which skill applies, then load the one you pick with get_skill. A guess is a guess: confirm it with the user first (pass its tier to fill_skill).",
	schema: func(p map[string]*jsonschema.Schema) {
		p["mode"].Enum = []any{string(router.Ranked), string(router.Spec)}
		p["limit"].Minimum = jsonschema.Ptr(0.0)
	},
	inline:  routeInline,
	bigHint: hint("pass a smaller limit"),
	run:     (*server).routeSkill,
})

// routeSkillInput is route_skill's arguments.
type routeSkillInput struct {
	Text  string `json:"text" jsonschema:"the request to route, in the user's words"`
	Mode  string `json:"mode,omitempty" jsonschema:"\"ranked\" (default: stemmed phrase matching, relevance tie-breaks, relaxed matches when no phrase hits) or \"spec\" (exact agent3md/1 trigger matching)"`
	Limit *int   `json:"limit,omitempty" jsonschema:"at most this many matches; 0 means all; absent means 5 in ranked mode (the sure matches, then guesses) and all in spec mode, as many as fit in 40,000 characters"`
}

// inlineArgsBytes bounds the arguments of a route_skill answered inline:
// the router's work grows with the request's text.
const inlineArgsBytes = 1024

// routeInline: a route walks the index, cheap on a small agent once its
// index is ready and for a short request.
func routeInline(s *server, args json.RawMessage) bool {
	if !s.smallAgent() || len(args) > inlineArgsBytes {
		return false
	}
	g := s.cur.Load()
	if g == nil {
		return false
	}
	select {
	case <-g.routing.ready:
		return true
	default:
		return false
	}
}

// RouteQuery is the query route_skill routes a request with when the call
// names no mode and no limit: Ranked, at most router.DefaultLimit matches.
// A model wants the few best skills, not every skill that shares a word
// with the request (on a 100,000-skill agent "all" is megabytes).
// `agent3md eval` and validate's routing lints route with it, so their
// figures are what a model calling route_skill is given.
func RouteQuery() *router.Query {
	return &router.Query{Mode: router.Ranked, Limit: router.DefaultLimit}
}

func (s *server) routeSkill(ctx context.Context, v *generation, in *routeSkillInput) (*toolOutcome, error) {
	if strings.TrimSpace(in.Text) == "" {
		return &toolOutcome{text: `argument "text" is empty: pass the request to route, in the user's words`, isError: true}, nil
	}
	q := RouteQuery()
	if in.Mode != "" && router.Mode(in.Mode) != router.Ranked {
		// Spec mode keeps the reference's "all matches".
		q.Mode, q.Limit = router.Mode(in.Mode), 0
	}
	if in.Limit != nil {
		q.Limit = *in.Limit
	}
	r, err := v.routing.wait(ctx)
	if err != nil {
		return nil, err
	}
	matches, err := r.Route(ctx, in.Text, q)
	if err != nil {
		return nil, err
	}
	found := len(matches)
	if in.Limit == nil { // a default answer: what fits a host (spec mode is "all")
		matches = fitRoute(matches)
	}
	out := &toolOutcome{text: routeText(matches)}
	if len(matches) < found {
		out.extra = []string{fmt.Sprintf("The first %d of %d matches, to keep this answer under %d characters: pass limit to get more (0 for all).",
			len(matches), found, hostAnswerChars)}
	}
	return out, nil
}

// routeNoteChars is what a cut route answer keeps free for its note.
const routeNoteChars = 256

// fitRoute keeps the matches whose lines fit hostAnswerChars, at least
// one: a default route answer is three ranked matches, far below it, but
// spec mode answers every match, and a skill's trigger phrases may be
// long.
func fitRoute(matches []router.Match) []router.Match {
	used := routeNoteChars
	for i := range matches {
		m := &matches[i]
		// The line, "name  (score N; matched: a, b; relaxed)".
		n := len(m.Name) + 48
		for _, h := range m.Hits {
			n += len(h) + 2
		}
		if i > 0 && used+n > hostAnswerChars {
			return matches[:i]
		}
		used += n
	}
	return matches
}

// routeText is route_skill's text: one line per match in the reference's
// format (router.AppendLine: a relaxed or name match says its tier after
// the reference's fields, so a model reading only the text knows which
// ones to confirm), or "no skill matched".
func routeText(matches []router.Match) string {
	if len(matches) == 0 {
		return "no skill matched"
	}
	n := 0
	for i := range matches {
		n += len(matches[i].Name) + 40
		for _, h := range matches[i].Hits {
			n += len(h) + 2
		}
	}
	b := make([]byte, 0, n)
	for i := range matches {
		if i > 0 {
			b = append(b, '\n')
		}
		b = router.AppendLine(b, &matches[i])
	}
	return string(b)
}
