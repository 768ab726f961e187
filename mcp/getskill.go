package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/loader"
)

// get_skill and resolve_skill answer with text only, and declare no
// outputSchema: a body is Markdown for the model, and hosts that see
// structured content hand the model that instead of the text (Claude
// Code, Codex CLI), which made a body one escaped JSON string
// (docs/protocol.md §4).
var getSkillTool = newTool[getSkillInput, textOnly](toolSpec[getSkillInput]{
	name:   toolGetSkill,
	title:  "Get a skill",
	desc:   "Load one skill's instructions (its Markdown body) by name. Call it once you know which skill to follow; pass file to read a file the instructions point to.",
	listed: func(tj *toolJSON, names, _ string) { tj.Description += " " + names },
	// One catalog entry and one body of at most the parser's body bound,
	// or one file of the skill's folder: cheap at any size.
	inline:  func(*server, json.RawMessage) bool { return true },
	bigHint: hint("the skill's body is too large to send in one answer; ask the operator to raise the bound"),
	cache:   cacheBodies,
	run:     (*server).getSkill,
})

// getSkillInput is get_skill's arguments.
type getSkillInput struct {
	Name string `json:"name" jsonschema:"the skill's name, as list_skills or route_skill gives it"`
	File string `json:"file,omitempty" jsonschema:"a file of the skill's folder that its instructions mention (e.g. reference.md, scripts/fill.py), as a path relative to the skill; absent: the instructions"`
}

func (s *server) getSkill(ctx context.Context, v *generation, in *getSkillInput) (*toolOutcome, error) {
	name := in.Name
	// An empty file is no file: models often fill every optional
	// argument, with "" for those they have nothing for.
	if file := in.File; file != "" {
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
func (s *server) getSkillFile(ctx context.Context, v *generation, name, file string) (*toolOutcome, error) {
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
			name, textclip.Bytes(file, 120), strings.Join(paths, ", "), more)}, nil
	case err != nil:
		return s.unknownSkill(v, err, name)
	case !f.Text:
		return &toolOutcome{isError: true, text: fmt.Sprintf("File %s of skill %s is not text (%s, %d bytes); read it as the resource %s.",
			f.Path, name, f.MIME, f.Size, fileURI(slug, f.Path))}, nil
	}
	return &toolOutcome{text: string(data)}, nil
}
