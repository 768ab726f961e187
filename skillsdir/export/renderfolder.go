package export

import (
	"context"
	"fmt"
	"slices"
)

// RenderFolder renders skill i as the whole Agent Skills folder an agent
// file makes (docs/format.md §15): Render's SKILL.md ending in a line that
// sends the reader to the agent's identity and rules, its dependency
// references, and references/AGENT.md with the identity. It is what export
// --skills-dir writes and what a server serves as the skill's files, so a
// folder synced from a server holds the same bytes as an exported one: a
// team's rules live in the identity, and a skill read without them loses
// them.
func (d *Doc) RenderFolder(ctx context.Context, i int, chain []int) (*Rendered, error) {
	r, err := d.Render(ctx, i, chain)
	if err != nil {
		return nil, err
	}
	idBody := ""
	if id := d.Agent.Identity; id >= 0 && id < len(d.Catalog.Planes) {
		if idBody, err = d.Body(id); err != nil {
			return nil, err
		}
	}
	text := slices.Clip(r.Text)
	text = fmt.Appendf(text, "\nThis skill belongs to the agent %s: read its identity and rules in [AGENT.md](%s) before acting.\n", d.Agent.Name, IdentityFile)
	r.Text, r.SHA256 = text, sum(text)
	id := identityMarkdown(d.Agent, idBody)
	r.References = append(r.References, Reference{Path: IdentityFile, Text: id, SHA256: sum(id)})
	return r, nil
}
