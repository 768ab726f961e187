package mcp

import (
	"context"
	"sort"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
	"github.com/agent3md/agent3md/loader"
)

// Prompts (docs/protocol.md §9): "agent", the identity as a system-style
// prompt, and one prompt per skill, named by its Agent Skills name, with
// its declared inputs as arguments. prompts/get returns the skill's
// resolved chain and, for a skill with a command, the command filled from
// the arguments — never run.

const (
	promptAgent     = "agent"
	promptsPageSize = 100
)

var promptsFeature = &feature{
	name:       "prompts",
	capability: "prompts",
	settings:   func(s *server) map[string]any { return s.listChanged() },
	methods: map[string]methodSpec{
		methodPromptsList: {handle: (*server).promptsList, legacy: true, modern: true, cached: true},
		methodPromptsGet:  {handle: (*server).promptsGet, legacy: true, modern: true},
	},
}

type promptArgJSON struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
}

type promptJSON struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	Arguments   []promptArgJSON `json:"arguments,omitempty"`
}

type promptsListResult struct {
	modernFields
	Prompts    []promptJSON `json:"prompts"`
	NextCursor string       `json:"nextCursor,omitempty"`
}

// promptsList lists "agent" first, then the skills, a page at a time (the
// agent prompt counts as entry 0).
func (s *server) promptsList(ctx context.Context, c *call) (any, error) {
	var p listParams
	v, err := c.bindAgent(ctx, &p)
	if err != nil {
		return nil, err
	}
	snap := v.agent.Snapshot()
	pg, err := pageOf(p.Cursor, cursorPrompts, contentFP(snap), "prompt", snap.Len()+1, promptsPageSize)
	if err != nil {
		return nil, err
	}
	out := &promptsListResult{Prompts: make([]promptJSON, 0, pg.end-pg.start)}
	for k := pg.start; k < pg.end; k++ {
		if k == 0 {
			out.Prompts = append(out.Prompts, promptJSON{Name: promptAgent, Title: agentTitle(v),
				Description: "Take on the " + agentTitle(v) + " agent: its identity and way of working, as a system-style prompt."})
			continue
		}
		out.Prompts = append(out.Prompts, skillPrompt(snap, k-1))
	}
	out.NextCursor = pg.next
	return out, nil
}

func skillPrompt(snap loader.Snapshot, i int) promptJSON {
	sk := snap.Skill(i)
	p := promptJSON{Name: snap.Slug(i), Title: sk.Name, Description: snap.Description(i)}
	for _, in := range sk.Inputs {
		p.Arguments = append(p.Arguments, promptArgJSON{Name: in.Name, Description: "The " + in.Name + " input (" + in.Type + ").", Required: !in.Optional})
	}
	return p
}

type promptsGetParams struct {
	Name      string            `json:"name" param:"required" desc:", the prompt's name as a string"`
	Arguments map[string]string `json:"arguments"`
}

type promptMessage struct {
	Role    string      `json:"role"`
	Content textContent `json:"content"`
}

type promptsGetResult struct {
	modernFields
	Description string          `json:"description,omitempty"`
	Messages    []promptMessage `json:"messages"`
}

func (s *server) promptsGet(ctx context.Context, c *call) (any, error) {
	var p promptsGetParams
	v, err := c.bindAgent(ctx, &p)
	if err != nil {
		return nil, err
	}
	if p.Name == promptAgent {
		body, err := v.agent.IdentityBody(ctx)
		if err != nil {
			return nil, errorf(codeInternalError, "Internal error: reading the identity: %v", err)
		}
		return &promptsGetResult{Description: "The " + agentTitle(v) + " agent's identity.", Messages: []promptMessage{
			{Role: "user", Content: textContent{Type: "text", Text: body}},
		}}, nil
	}
	snap := v.agent.Snapshot()
	i, ok := snap.SlugIndex(p.Name)
	if !ok {
		return nil, errorf(codeInvalidParams, "Invalid params: unknown prompt %q; prompts/list names them (a skill's prompt is its Agent Skills name)", textclip.Bytes(p.Name, 120))
	}
	sk := snap.Skill(i)
	var missing []string
	for _, in := range sk.Inputs {
		if _, ok := p.Arguments[in.Name]; !ok && !in.Optional {
			missing = append(missing, in.Name)
		}
	}
	if len(missing) > 0 {
		return nil, errorf(codeInvalidParams, "Invalid params: prompt %s needs the argument(s) %s", p.Name, strings.Join(missing, ", "))
	}
	chain, err := v.agent.Resolve(ctx, sk.Name)
	if err != nil {
		return nil, errorf(codeInternalError, "Internal error: resolving %s: %v", sk.Name, err)
	}
	text := loader.ChainText(chain)
	if sk.HasTool {
		f, err := v.agent.Command(sk.Name, p.Arguments)
		if err == nil {
			text += "\n\n" + fillText(fillOf(f, sk.Cost, ""))
		}
	}
	return &promptsGetResult{Description: snap.Description(i), Messages: []promptMessage{
		{Role: "user", Content: textContent{Type: "text", Text: text}},
	}}, nil
}

// Completion (docs/protocol.md §9): skill names for the {name} of a
// skill:// template, and prompt arguments from their declared type — the
// values of a boolean, or of a type written as a|b|c.

const (
	maxCompletions   = 100
	refPromptType    = "ref/prompt"
	refResourceType  = "ref/resource"
	templateNameArg  = "name"
	templateNameVars = "skill://{name}"
)

var completionFeature = &feature{
	name:       "completions",
	capability: "completions",
	methods: map[string]methodSpec{
		methodComplete: {handle: (*server).complete, legacy: true, modern: true},
	},
}

type completeParams struct {
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref" param:"required" desc:", an object {type: \"ref/prompt\", name} or {type: \"ref/resource\", uri}"`
	Argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument" param:"required" desc:", an object {name, value}"`
}

type completionJSON struct {
	Values  []string `json:"values"`
	Total   int      `json:"total"`
	HasMore bool     `json:"hasMore"`
}

type completeResult struct {
	modernFields
	Completion completionJSON `json:"completion"`
}

func (s *server) complete(ctx context.Context, c *call) (any, error) {
	var p completeParams
	v, err := c.bindAgent(ctx, &p)
	if err != nil {
		return nil, err
	}
	snap := v.agent.Snapshot()
	var all []string
	switch p.Ref.Type {
	case refResourceType:
		if !strings.HasPrefix(p.Ref.URI, templateNameVars) || p.Argument.Name != templateNameArg {
			return nil, errorf(codeInvalidParams, "Invalid params: only the {name} of a skill://{name}/… template completes, not %q of %q", textclip.Bytes(p.Argument.Name, 60), textclip.Bytes(p.Ref.URI, 120))
		}
		for i := 0; i < snap.Len(); i++ {
			if slug := snap.Slug(i); strings.HasPrefix(slug, p.Argument.Value) {
				all = append(all, slug)
			}
		}
	case refPromptType:
		if p.Ref.Name == promptAgent {
			break
		}
		i, ok := snap.SlugIndex(p.Ref.Name)
		if !ok {
			return nil, errorf(codeInvalidParams, "Invalid params: unknown prompt %q; prompts/list names them", textclip.Bytes(p.Ref.Name, 120))
		}
		found := false
		for _, in := range snap.Skill(i).Inputs {
			if in.Name != p.Argument.Name {
				continue
			}
			found = true
			for _, val := range typeValues(in.Type) {
				if strings.HasPrefix(val, p.Argument.Value) {
					all = append(all, val)
				}
			}
		}
		if !found {
			return nil, errorf(codeInvalidParams, "Invalid params: prompt %s has no argument %q", p.Ref.Name, textclip.Bytes(p.Argument.Name, 60))
		}
	default:
		return nil, errorf(codeInvalidParams, "Invalid params: params.ref.type must be %q or %q", refPromptType, refResourceType)
	}
	sort.Strings(all)
	res := completionJSON{Values: all, Total: len(all)}
	if len(all) > maxCompletions {
		res.Values, res.HasMore = all[:maxCompletions], true
	}
	if res.Values == nil {
		res.Values = []string{}
	}
	return &completeResult{Completion: res}, nil
}

// typeValues are the values an input's type allows, when it names them.
func typeValues(typ string) []string {
	if typ == "boolean" || typ == "bool" {
		return []string{"false", "true"}
	}
	if strings.Contains(typ, "|") {
		var out []string
		for _, v := range strings.Split(typ, "|") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	return nil
}
