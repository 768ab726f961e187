package loader

import (
	"context"

	"github.com/agent3md/agent3md/skillsdir/export"
)

// SkillMD renders the skill named name as the Agent Skills folder export
// writes and a server serves: SKILL.md, one reference per other skill of
// its resolve chain and references/AGENT.md with the agent's identity
// (export.Doc.RenderFolder, docs/format.md §15). For an Agent served from skill folders it is the
// skill's own SKILL.md byte for byte, with no References (its other files
// are listed by SkillFiles).
func (a *Agent) SkillMD(ctx context.Context, name string) (*export.Rendered, error) {
	var r *export.Rendered
	err := a.view(ctx, func(st *state) error {
		i, err := st.lookup(name)
		if err != nil {
			return err
		}
		r, err = st.render(ctx, i)
		return err
	})
	return r, err
}

// SkillMDBySlug is SkillMD for the skill whose Agent Skills name is slug.
func (a *Agent) SkillMDBySlug(ctx context.Context, slug string) (*export.Rendered, error) {
	var r *export.Rendered
	err := a.view(ctx, func(st *state) error {
		i, err := st.bySlugErr(slug)
		if err != nil {
			return err
		}
		r, err = st.render(ctx, i)
		return err
	})
	return r, err
}

func (st *state) render(ctx context.Context, i int) (*export.Rendered, error) {
	if st.folder != nil {
		return st.folderSkillMD(ctx, i)
	}
	return st.doc().RenderFolder(ctx, i, st.chain(i))
}

// doc is the state as the renderer reads it.
func (st *state) doc() *export.Doc {
	return &export.Doc{Catalog: st.cat, Agent: st.info, Slugs: st.slugList(), SkillAt: st.skillAt, Body: st.body}
}
