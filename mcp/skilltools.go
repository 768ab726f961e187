package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// The five tools. Descriptions are written for a model: when to call the
// tool, in a sentence or two.
var (
	listSkillsTool = &toolDef{
		name:  toolListSkills,
		title: "List skills",
		desc: "List the agent's skills as a JSON array in source order: each skill's name, z, trigger phrases, cost tag and command template (null when absent), then its description, typed inputs and dependencies. " +
			"Without limit, one call returns the skills that fit in 40,000 characters (at most 200); with limit, at most that many (up to 1000). When there are more, a second text block and structuredContent give the total and the cursor of the next page. " +
			"Pass query to list only the skills whose name or trigger phrases contain every word of it. To find the skill for a request, route_skill is cheaper.",
		params: []paramDef{
			{name: "query", kind: "string", desc: "only skills whose name or trigger phrases contain every word of this, ignoring case"},
			{name: "limit", kind: "integer", min: 1, max: maxListLimit, desc: "at most this many skills (1 to 1000); absent: as many as fit in 40,000 characters, at most 200"},
			{name: "cursor", kind: "string", desc: "the nextCursor of the previous answer, to get the next page (with the same query)"},
		},
		output: json.RawMessage(`{"type":"object","properties":{"skills":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"z":{"type":"number"},"triggers":{"type":"array","items":{"type":"string"}},"cost":{"type":["string","null"]},"tool":{"type":["string","null"]},"description":{"type":"string"},"inputs":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"type":{"type":"string"},"required":{"type":"boolean"}},"required":["name","type","required"]}},"deps":{"type":"array","items":{"type":"string"}}},"required":["name","z","triggers","cost","tool","description","inputs","deps"]}},"total":{"type":"integer"},"matched":{"type":"integer"},"nextCursor":{"type":"string"}},"required":["skills","total","matched"]}`),
		run:    (*server).listSkills,
	}
	routeSkillTool = &toolDef{
		name:  toolRouteSkill,
		title: "Route a request to skills",
		desc: "Find which skills fit a request: pass the user's request as text and get a short list of skill names, best first, with the words that matched. " +
			"The sure matches come first: a trigger phrase hit, a skill the request names (\"; name\"), or one whose description's words it says (\"; described\"). After them, up to the limit, come guesses for you to choose among when the first does not fit: \"; relaxed\" (the skill's name, description or instructions share the request's words) and \"; runner-up\" (what a plain search over names and descriptions ranks next). " +
			"A guess says its fit: the share of the request's words, the rarer ones weighing more, that the skill's name and description hold (fit 80% is most of the request, fit 10% one minor word). " +
			"Call it first when you do not know which skill applies, then load the one you pick with get_skill. A guess is a guess: confirm it with the user first (pass its tier to fill_skill).",
		params: []paramDef{
			{name: "text", kind: "string", required: true, desc: "the request to route, in the user's words"},
			{name: "mode", kind: "string", enum: []string{string(router.Ranked), string(router.Spec)},
				desc: `"ranked" (default: stemmed phrase matching, relevance tie-breaks, relaxed matches when no phrase hits) or "spec" (exact agent3md/1 trigger matching)`},
			{name: "limit", kind: "integer", desc: "at most this many matches; 0 means all; absent means 5 in ranked mode (the sure matches, then guesses) and all in spec mode, as many as fit in 40,000 characters"},
		},
		bigHint: hint("pass a smaller limit"),
		run:     (*server).routeSkill,
	}
	// get_skill and resolve_skill answer with text only, and declare no
	// outputSchema: a body is Markdown for the model, and hosts that see
	// structured content hand the model that instead of the text (Claude
	// Code, Codex CLI), which made a body one escaped JSON string
	// (docs/protocol.md §4).
	getSkillTool = &toolDef{
		name:  toolGetSkill,
		title: "Get a skill",
		desc:  "Load one skill's instructions (its Markdown body) by name. Call it once you know which skill to follow; pass file to read a file the instructions point to.",
		params: []paramDef{
			{name: "name", kind: "string", required: true, desc: "the skill's name, as list_skills or route_skill gives it"},
			{name: "file", kind: "string", desc: "a file of the skill's folder that its instructions mention (e.g. reference.md, scripts/fill.py), as a path relative to the skill; absent: the instructions"},
		},
		bigHint: hint("the skill's body is too large to send in one answer; ask the operator to raise the bound"),
		run:     (*server).getSkill,
	}
	resolveSkillTool = &toolDef{
		name:  toolResolveSkill,
		title: "Resolve a skill with its dependencies",
		desc: "Load a skill together with every skill it depends on (depth-first, each once), each as a \"### name\" section. " +
			"Call it instead of get_skill when the skill links to other skills. A chain too long for one answer ends with a note naming the skills left out: load those with get_skill.",
		params:  []paramDef{{name: "name", kind: "string", required: true, desc: "the skill's name, as list_skills or route_skill gives it"}},
		bigHint: resolveHint,
		run:     (*server).resolveSkill,
	}
)

// unknownSkill turns a loader error into the model-facing answer: an
// unknown name lists the closest names; anything else is returned.
func (s *server) unknownSkill(v *version, err error, name string) (*toolOutcome, error) {
	var ue *loader.UnknownSkillError
	if !errors.As(err, &ue) {
		return nil, err
	}
	closest := ue.Closest
	if len(closest) == 0 {
		closest = v.agent.Closest(name, 3)
	}
	msg := "Unknown skill: " + clip(name, 120) // a name is echoed, never a megabyte of it
	if len(closest) > 0 {
		msg += " (closest: " + strings.Join(closest, ", ") + ")"
	}
	msg += `. Argument "name" must be one of the agent's skill names: find it with route_skill, or with list_skills and a query.`
	return &toolOutcome{text: msg, isError: true}, nil
}

func (s *server) routeSkill(ctx context.Context, v *version, args map[string]json.RawMessage) (*toolOutcome, error) {
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
	text = routeText(matches)
	out := &toolOutcome{text: text}
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
func fitRoute(v *version, matches []router.Match) []router.Match {
	used := len(`{"matches":[]}`) + routeNoteChars
	for i := range matches {
		m := &matches[i]
		// The line, "name  (score N; matched: a, b; relaxed)".
		n := len(m.Name) + 64
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

func (s *server) getSkill(ctx context.Context, v *version, args map[string]json.RawMessage) (*toolOutcome, error) {
	name := stringArg(args, "name")
	// An empty file is no file: models often fill every optional
	// argument, with "" for those they have nothing for.
	if file := stringArg(args, "file"); file != "" {
		return s.getSkillFile(ctx, v, name, file)
	}
	body, err := v.agent.Body(ctx, name)
	if err != nil {
		return s.unknownSkill(v, err, name)
	}
	return &toolOutcome{text: body}, nil
}

// maxListedFiles bounds the files an unknown-file answer lists.
const maxListedFiles = 20

// getSkillFile is get_skill with file: one file of the skill's Agent
// Skills directory (docs/protocol.md §4), the same bytes resources/read
// of skill://<slug>/<file> serves, for the clients that give the model
// tools but no resources. A binary file is named with its resource URI
// instead; a path the skill does not serve lists the ones it does.
func (s *server) getSkillFile(ctx context.Context, v *version, name, file string) (*toolOutcome, error) {
	slug, err := v.agent.Slug(name)
	if err != nil {
		return s.unknownSkill(v, err, name)
	}
	file = strings.TrimPrefix(file, "./")
	data, f, err := v.agent.ReadSkillFile(ctx, slug, file)
	switch {
	case errors.Is(err, loader.ErrNoSkillFile):
		files, lerr := v.agent.SkillFiles(ctx, slug)
		if lerr != nil {
			return nil, lerr
		}
		paths := make([]string, 0, min(len(files), maxListedFiles))
		for _, f := range files[:min(len(files), maxListedFiles)] {
			paths = append(paths, f.Path)
		}
		more := ""
		if len(files) > maxListedFiles {
			more = fmt.Sprintf(" and %d more", len(files)-maxListedFiles)
		}
		return &toolOutcome{isError: true, text: fmt.Sprintf("Skill %s has no file %q. Argument \"file\" must be a path relative to the skill, one of: %s%s.",
			name, clip(file, 120), strings.Join(paths, ", "), more)}, nil
	case err != nil:
		return s.unknownSkill(v, err, name)
	case !f.Text:
		return &toolOutcome{isError: true, text: fmt.Sprintf("File %s of skill %s is not text (%s, %d bytes); read it as the resource %s.",
			f.Path, name, f.MIME, f.Size, fileURI(slug, f.Path))}, nil
	}
	return &toolOutcome{text: string(data)}, nil
}

// resolveHint says how to load a chain too large for one answer.
func resolveHint(out *toolOutcome) string {
	if len(out.chain) == 0 {
		return "load the skill and each of its dependencies with get_skill, one per call"
	}
	return "load these skills with get_skill instead, one per call, in this order: " + clip(strings.Join(out.chain, ", "), 2000)
}

func (s *server) resolveSkill(ctx context.Context, v *version, args map[string]json.RawMessage) (*toolOutcome, error) {
	name := stringArg(args, "name")
	chain, err := v.agent.Resolve(ctx, name)
	if err != nil {
		return s.unknownSkill(v, err, name)
	}
	names := make([]string, len(chain))
	for i, r := range chain {
		names[i] = r.Name
	}
	text, shown := s.chainQuoted(chain)
	out := &toolOutcome{quoted: text, chain: names}
	if shown < len(chain) {
		out.extra = []string{leftOutNote(names[shown:], len(chain))}
	}
	return out, nil
}

// resolveNoteChars is what a resolve answer keeps free of its budget for
// the note naming the skills left out (leftOutNote stays under it).
const resolveNoteChars = 4096

// chainQuoted writes the sections of chain that fit a default answer as
// resolve_skill's text (chainText), escaped and quoted once, straight
// from the bodies: the whole chain when it fits hostAnswerChars and the
// answer bound; else the requested skill, then its dependencies in order
// while they fit with room left for the note that names the rest. It
// returns the text and how many skills it holds.
func (s *server) chainQuoted(chain []loader.Resolved) ([]byte, int) {
	chars := 0
	for i, r := range chain {
		chars += sectionChars(i, r)
	}
	wire := s.maxAnswerBytes() - 256 // the answer's envelope
	if chars <= hostAnswerChars {
		if text, shown := appendChain(chain, hostAnswerChars, wire); shown == len(chain) {
			return text, shown
		}
	}
	// The note's names are plain labels: escaping at most doubles them.
	return appendChain(chain, hostAnswerChars-resolveNoteChars, wire-2*resolveNoteChars)
}

// appendChain writes chain's sections, quoted, while the text stays within
// chars characters and wire bytes escaped; the first section always.
func appendChain(chain []loader.Resolved, chars, wire int) ([]byte, int) {
	size := 16
	for _, r := range chain {
		size += len(r.Body) + len(r.Body)/8 + len(r.Name) + 16
	}
	text := append(make([]byte, 0, min(size, 2*chars)), '"')
	used, shown := 0, 0
	for i, r := range chain {
		mark, n := len(text), sectionChars(i, r)
		if i > 0 {
			if used+n > chars {
				break
			}
			text = append(text, `\n\n`...)
		}
		text = append(text, "### "...)
		text = appendJSONChars(text, r.Name)
		text = append(text, `\n`...)
		text = appendJSONChars(text, r.Body)
		if i > 0 && len(text) > wire {
			text = text[:mark]
			break
		}
		used += n
		shown++
	}
	return append(text, '"'), shown
}

// sectionChars is the length of chain section i in chainText.
func sectionChars(i int, r loader.Resolved) int {
	n := len("### \n") + len(r.Name) + len(r.Body)
	if i > 0 {
		n += len("\n\n")
	}
	return n
}

// leftOutNote is the second text block of a resolve answer that holds only
// part of its chain: which skills were left out, and how to load them.
func leftOutNote(left []string, total int) string {
	listed := strings.Join(left, ", ")
	if len(listed) > resolveNoteChars/2 {
		listed = clip(listed, resolveNoteChars/2) + " (the list is cut)"
	}
	return fmt.Sprintf("Left out to keep this answer under %d characters: %d of the %d skills of this chain, in order: %s. "+
		"Load each with get_skill (resolve_skill on one of them loads it with its own dependencies).",
		hostAnswerChars, len(left), total, listed)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
