package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/loader"
)

// resolveSkillTool is resolve_skill, text alone as get_skill.
var resolveSkillTool = newTool[resolveSkillInput, textOnly](toolSpec[resolveSkillInput]{
	name:  toolResolveSkill,
	title: "Resolve a skill with its dependencies",
	desc: "Load a skill together with every skill it depends on (depth-first, each once), each as a \"### name\" section. " +
		"Call it instead of get_skill when the skill links to other skills. A chain too long for one answer ends with a note naming the skills left out: load those with get_skill.",
	inline:  resolveInline,
	bigHint: resolveHint,
	cache:   cacheBodies,
	run:     (*server).resolveSkill,
})

// resolveSkillInput is resolve_skill's arguments.
type resolveSkillInput struct {
	Name string `json:"name" jsonschema:"the skill's name, as list_skills or route_skill gives it"`
}

// inlineChain is the longest resolve chain answered inline on a large
// agent: each skill in it is one body read.
const inlineChain = 16

// resolveInline: a chain of bodies is cheap while the agent is small or
// the chain short; before the agent loads, the call is answered with the
// load error.
func resolveInline(s *server, args json.RawMessage) bool {
	if s.smallAgent() {
		return true
	}
	g := s.cur.Load()
	return g == nil || g.agent.ChainWithin(nameArgument(args), inlineChain)
}

// resolveHint says how to load a chain too large for one answer.
func resolveHint(out *toolOutcome) string {
	if len(out.chain) == 0 {
		return "load the skill and each of its dependencies with get_skill, one per call"
	}
	return "load these skills with get_skill instead, one per call, in this order: " + textclip.Bytes(strings.Join(out.chain, ", "), 2000)
}

func (s *server) resolveSkill(ctx context.Context, v *generation, in *resolveSkillInput) (*toolOutcome, error) {
	name := in.Name
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
		listed = textclip.Bytes(listed, resolveNoteChars/2) + " (the list is cut)"
	}
	return fmt.Sprintf("Left out to keep this answer under %d characters: %d of the %d skills of this chain, in order: %s. "+
		"Load each with get_skill (resolve_skill on one of them loads it with its own dependencies).",
		hostAnswerChars, len(left), total, listed)
}

// nameArgument is the "name" member of a tools/call's arguments, "" when
// there is none or it is not a string.
func nameArgument(args json.RawMessage) string {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || args[0] != '{' {
		return ""
	}
	var name string
	eachMember(args, func(key string, val []byte) {
		if key != "name" {
			return
		}
		var ok bool
		if name, ok = plainString(val); !ok {
			_ = json.Unmarshal(val, &name)
		}
	})
	return name
}
