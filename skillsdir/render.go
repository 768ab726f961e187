package loader

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
)

// Rendered is a skill rendered as an Agent Skills SKILL.md plus its
// references/<dep>.md supporting files (docs/format.md §15). The bytes
// are deterministic: the same file renders to the same bytes.
type Rendered struct {
	Slug   string // the frontmatter name: a valid, unique Agent Skills name
	Text   []byte // the SKILL.md bytes
	SHA256 string // lowercase hex of Text
	// Frontmatter is the SKILL.md frontmatter as a YAML parser yields it:
	// "name" and "description" strings and a "metadata" map[string]any of
	// strings. It is what the skills extension's frontmatter field carries.
	Frontmatter map[string]any
	References  []Reference
}

// Size is the length of the SKILL.md in bytes.
func (r *Rendered) Size() int { return len(r.Text) }

// Reference is one supporting file of a rendered skill.
type Reference struct {
	Path   string // "references/<dep-slug>.md"
	Skill  string // the dependency's skill name
	Text   []byte
	SHA256 string
}

// maxDescription is the Agent Skills bound on a description, in characters.
const maxDescription = 1024

// For an Agent served from skill folders, SkillMD is the skill's own
// SKILL.md byte for byte, with no References (its other files are listed
// by SkillFiles).
//
// SkillMD renders a skill as an Agent Skills SKILL.md with its references:
// the frontmatter holds name (the skill's slug), description and metadata
// (label, z, triggers, inputs, tool, cost as strings; empty ones omitted);
// the body follows with each [[z=N]] / [[z=N|text]] link to a skill
// rewritten to [text](references/<slug>.md). Every other skill in the
// resolve chain gets one reference file holding its body, whose links point
// at sibling files (and at ../SKILL.md for the skill itself). Links to the
// identity, to missing planes and with non-integer targets are left as
// written.
func (a *Agent) SkillMD(ctx context.Context, name string) (*Rendered, error) {
	var r *Rendered
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
func (a *Agent) SkillMDBySlug(ctx context.Context, slug string) (*Rendered, error) {
	var r *Rendered
	err := a.view(ctx, func(st *state) error {
		i, ok := st.slugIndex()[slug]
		if !ok {
			return &UnknownSkillError{Name: slug, Closest: closest(st.slugList(), slug, 3)}
		}
		var err error
		r, err = st.render(ctx, i)
		return err
	})
	return r, err
}

func (st *state) render(ctx context.Context, i int) (*Rendered, error) {
	if st.folder != nil {
		return st.folderSkillMD(ctx, i)
	}
	chain := st.chain(i)
	inChain := make(map[int]bool, len(chain))
	for _, j := range chain {
		inChain[j] = true
	}
	fm := st.frontmatter(i)
	body, err := st.body(st.info.Skills[i].Plane)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	writeFrontmatter(&b, fm)
	if body != "" {
		b.WriteString(st.rewrite(body, i, inChain, "references/", "SKILL.md"))
		b.WriteByte('\n')
	}
	r := &Rendered{Slug: st.slugList()[i], Text: b.Bytes(), SHA256: sum(b.Bytes()), Frontmatter: fm.asMap()}
	for k, j := range chain[1:] {
		if k%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		dep, err := st.body(st.info.Skills[j].Plane)
		if err != nil {
			return nil, err
		}
		text := []byte(st.rewrite(dep, i, inChain, "", "../SKILL.md") + "\n")
		r.References = append(r.References, Reference{
			Path:   "references/" + st.slugList()[j] + ".md",
			Skill:  st.info.Skills[j].Name,
			Text:   text,
			SHA256: sum(text),
		})
	}
	return r, nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// frontmatter is the ordered content of a SKILL.md frontmatter.
type frontmatter struct {
	name, description string
	top               [][2]string // topKeys set on the plane, in that order
	metadata          [][2]string // key, value in a fixed order
}

func (f frontmatter) asMap() map[string]any {
	meta := make(map[string]any, len(f.metadata))
	for _, kv := range f.metadata {
		meta[kv[0]] = kv[1]
	}
	m := map[string]any{"name": f.name, "description": f.description, "metadata": meta}
	for _, kv := range f.top {
		if boolKeys[kv[0]] {
			m[kv[0]] = kv[1] == "true"
		} else {
			m[kv[0]] = kv[1]
		}
	}
	return m
}

// topKeys are the Agent Skills frontmatter fields a plane can carry as
// attributes of the same name, which import writes so that they survive a
// round trip (docs/format.md §15): the agent format has no field of its
// own for them. Not allowed-tools, which import keeps too: in a SKILL.md
// it pre-approves tools for the host, and nobody reading an agent file
// expects an attribute the format ignores to grant that.
//
// The Claude Code fields that only restrict or describe the skill come
// back too (a deploy skill marked disable-model-invocation must not turn
// auto-invoked by a round trip); hooks, which run commands, do not.
var topKeys = []string{"license", "compatibility", "argument-hint", "disable-model-invocation", "user-invocable", "model", "effort"}

// boolKeys are the topKeys written as YAML booleans: Claude Code reads
// "true" in quotes as a string.
var boolKeys = map[string]bool{"disable-model-invocation": true, "user-invocable": true}

// frontmatter builds skill i's frontmatter (docs/format.md §15: metadata is a
// string-to-string map, so numbers are strings and lists are joined).
func (st *state) frontmatter(i int) frontmatter {
	s := &st.info.Skills[i]
	pl := &st.cat.Planes[s.Plane]
	f := frontmatter{name: st.slugList()[i], description: st.description(i)}
	if d := strings.Join(strings.Fields(clean(pl.Attributes.Value("description"))), " "); d != "" {
		// The whole Agent Skills description, which the body's first
		// paragraph holds only to docs/format.md §5's 500 characters.
		f.description = clip(d, maxDescription)
	}
	for _, k := range topKeys {
		v := clean(pl.Attributes.Value(k))
		if strings.TrimSpace(v) == "" || boolKeys[k] && v != "true" && v != "false" {
			continue
		}
		f.top = append(f.top, [2]string{k, v})
	}
	add := func(k, v string) {
		if v = clean(v); v != "" {
			f.metadata = append(f.metadata, [2]string{k, v})
		}
	}
	if pl.HasLabel {
		add("label", pl.Label)
	}
	add("z", formatZ(s.Z))
	add("triggers", strings.Join(s.Triggers, ", "))
	ins := make([]string, len(s.Inputs))
	for k, in := range s.Inputs {
		ins[k] = in.Name + ":" + in.Type
		if in.Optional {
			ins[k] += "?"
		}
	}
	add("inputs", strings.Join(ins, ", "))
	if s.HasTool {
		add("tool", s.Tool)
	}
	add("cost", s.Cost)
	return f
}

// description is the plane's description, else a sentence built from the
// triggers, else one naming the skill; whitespace collapsed, 1-1024
// characters.
func (st *state) description(i int) string {
	s := &st.info.Skills[i]
	d := strings.Join(strings.Fields(clean(st.linkText(st.cat.Planes[s.Plane].Description))), " ")
	if d == "" && len(s.Triggers) > 0 {
		d = "Use when a request mentions " + strings.Join(s.Triggers, ", ") + "."
		d = strings.Join(strings.Fields(clean(d)), " ")
	}
	if d == "" {
		d = clean("The " + s.Name + " skill of the " + st.info.Name + " agent.")
	}
	return clip(d, maxDescription)
}

// linkText replaces the links in a description with their text, or the
// name of the skill they point at: a description is plain prose for a host
// to show, where [[z=N]] means nothing.
func (st *state) linkText(d string) string {
	if !strings.Contains(d, "[[z=") {
		return d
	}
	var b strings.Builder
	rewriteLine(&b, d, func(target, text string, hasText bool) (string, bool) {
		if hasText && text != "" {
			return text, true
		}
		z, _ := agentfile.ParseNumber(target)
		if j, ok := st.skillAt(z); ok {
			return st.info.Skills[j].Name, true
		}
		return "", false
	})
	return b.String()
}

// clean makes s valid UTF-8, so YAML parsers accept it.
func clean(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// clip shortens s to at most n characters, at a word boundary when there is
// one in the last quarter, ending with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := len(r)
	for k := len(r) - 1; k > n*3/4; k-- {
		if r[k] == ' ' {
			cut = k
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ") + "…"
}

// rewrite turns body's dependency links into Markdown links: to a skill of
// the chain other than root -> prefix+<slug>.md, to root -> self. The link
// text is the link's own text when it has some, else the target's name.
// Links are found exactly as agentfile finds them, one line at a time.
func (st *state) rewrite(body string, root int, inChain map[int]bool, prefix, self string) string {
	if !strings.Contains(body, "[[z=") {
		return body
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		rewriteLine(&b, line, func(target, text string, hasText bool) (string, bool) {
			if !isDigits(target) {
				return "", false // not a dependency link (docs/format.md §11)
			}
			z, _ := agentfile.ParseNumber(target)
			j, ok := st.skillAt(z)
			if !ok || !inChain[j] {
				return "", false
			}
			href := self
			if j != root {
				href = prefix + st.slugList()[j] + ".md"
			}
			if !hasText || text == "" {
				text = st.info.Skills[j].Name
			}
			return "[" + escapeLinkText(text) + "](" + href + ")", true
		})
	}
	return b.String()
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// escapeLinkText backslash-escapes what would end or confuse a Markdown
// link text.
func escapeLinkText(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(s)
}
