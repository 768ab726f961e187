package importer

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/skillsdir"
	"github.com/agent3md/agent3md/skillsdir/export"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// identity is the agent's frontmatter and identity plane.
type identity struct {
	title, model, persona string
	tools                 []string
	body                  string
	// head, when set, is the frontmatter and identity plane of the agent
	// file an export was made from, written back exactly; z is then the
	// identity's z as written.
	head *folderwrite.AgentHead
	z    string
}

// name is the agent's name: its title, or with an exact head, as the
// agent file reads it (title, else agent, else "agent").
func (id *identity) name() string {
	if id.head == nil {
		return id.title
	}
	name, _, _, _ := headAgent(id.head)
	return name
}

// headAgent reads a head's frontmatter as agentfile reads the agent's fields
// (docs/format.md §7): name, model (default "unknown"), persona, tools.
func headAgent(h *folderwrite.AgentHead) (name, model, persona string, tools []string) {
	name, model = "agent", "unknown"
	var title, agentKey string
	var hasTitle, hasAgent bool
	for _, kv := range h.Frontmatter {
		switch strings.ToLower(kv[0]) {
		case "title":
			title, hasTitle = kv[1], true
		case "agent":
			agentKey, hasAgent = kv[1], true
		case "model":
			model = kv[1]
		case "persona":
			persona = kv[1]
		case "tools":
			tools = agentfile.SplitList(kv[1])
		}
	}
	switch {
	case hasTitle:
		name = title
	case hasAgent:
		name = agentKey
	}
	return name, model, persona, tools
}

// headKey reports whether a frontmatter key can be written back as it is:
// a line "key: value" gives it back when it holds no colon or line break,
// does not open a comment (#) or close the frontmatter, and has no space
// at either end (docs/format.md §2).
func headKey(k string) bool {
	return k != "" && k == strings.TrimSpace(k) && !strings.ContainsAny(k, ":\r\n\x00") && !strings.HasPrefix(k, "#") && k != "---"
}

// exactHead returns the head an export left in the skills' markers when
// the AGENT.md read says the same (a person may have edited it, and then
// AGENT.md wins), and every key in it can be written back as it is.
func exactHead(id *identity, items []*importedSkill) *folderwrite.AgentHead {
	var h *folderwrite.AgentHead
	for _, it := range items {
		if it.mark != nil && it.mark.Head != nil {
			h = it.mark.Head
			break
		}
	}
	if h == nil || len(h.Frontmatter) == 0 || h.Frontmatter[0][0] != "3md" || strings.TrimSpace(h.Frontmatter[0][1]) == "" {
		return nil
	}
	for _, kv := range h.Frontmatter {
		if !headKey(kv[0]) || strings.ContainsAny(kv[1], "\r\n\x00") {
			return nil
		}
	}
	name, model, persona, tools := headAgent(h)
	if name != id.title || model != cmp.Or(id.model, "unknown") || persona != id.persona || !slices.Equal(tools, id.tools) {
		return nil
	}
	return h
}

// readIdentity reads DIR/AGENT.md, else the AGENT.md an export wrote into
// the skills' references, else makes a short identity.
func readIdentity(ctx context.Context, dir string, cat *skillsdir.Catalog, items []*importedSkill, title string) (*identity, error) {
	text, found, err := readRootFile(dir, "AGENT.md")
	if err != nil {
		return nil, err
	}
	fromExport := false
	if !found {
		for _, it := range items {
			if it.exported[export.IdentityFile] {
				if ct, err := cat.ReadFile(ctx, it.s.Name, export.IdentityFile); err == nil {
					text, found, fromExport = string(ct.Data), true, true
					break
				}
			}
		}
	}
	id := &identity{}
	if found {
		id = parseAgentMD(text)
	}
	if fromExport && title == "" {
		if id.head = exactHead(id, items); id.head != nil {
			id.z = identityZ(id.head.IdentityZ, items)
		}
	}
	if title != "" {
		id.title = title
	}
	if id.title == "" {
		id.title = folderAgentName(dir)
	}
	if strings.TrimSpace(id.body) == "" {
		id.body = fmt.Sprintf("# %s\n\nThis agent's skills were imported from an Agent Skills folder. Route each request to the one skill that fits, read it (and the skills it links to) before acting, and follow it. A skill's files are listed by path in its folder; they are not part of this file.", id.title)
	}
	id.body, _, _ = sanitizeBody(strings.Trim(normalizeNewlines(id.body), "\n"))
	// Links to imported skills stay links (the identity is no skill, so
	// they make no cycle); text that would be any other link is made inert.
	idZ, _ := agentfile.ParseNumber(cmp.Or(id.z, "0"))
	planes := map[float64]bool{idZ: true}
	for _, it := range items {
		planes[float64(it.z)] = true
	}
	id.body, _ = neutralizeLinks(id.body, func(target string) bool {
		z, ok := agentfile.ParseNumber(target)
		return ok && planes[z]
	})
	return id, nil
}

// identityZ is the identity's z as the export's agent file wrote it, when
// it is a number no imported skill has; else "0".
func identityZ(text string, items []*importedSkill) string {
	z, ok := agentfile.ParseNumber(text)
	if !ok {
		return "0"
	}
	for _, it := range items {
		if float64(it.z) == z {
			return "0"
		}
	}
	return text
}

// readRootFile reads a small regular file directly in dir, through an
// os.Root so a symlink cannot lead it out of dir.
func readRootFile(dir, name string) (string, bool, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", false, err
	}
	defer root.Close()
	st, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if !st.Mode().IsRegular() {
		return "", false, fmt.Errorf("%s is not a regular file (mode %s); remove it or make it one", filepath.Join(dir, name), st.Mode().Type())
	}
	if st.Size() > skillsdir.DefaultMaxFileBytes {
		return "", false, fmt.Errorf("%s is over %d bytes", filepath.Join(dir, name), skillsdir.DefaultMaxFileBytes)
	}
	f, err := root.Open(name)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, skillsdir.DefaultMaxFileBytes+1))
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// folderAgentName names an agent after its skills folder, as a served
// folder is named: the folder's name, or for a folder called "skills"
// (~/.claude/skills) its parent's, "claude-skills", which says more.
func folderAgentName(dir string) string {
	abs, _ := filepath.Abs(dir)
	name := filepath.Base(abs)
	if name == "skills" {
		if p := strings.TrimPrefix(filepath.Base(filepath.Dir(abs)), "."); p != "" && p != "/" && p != "." {
			name = p + "-skills"
		}
	}
	return name
}

var agentMDField = regexp.MustCompile(`^- (model|persona|tools): (.*)$`)

// parseAgentMD reads an AGENT.md as a served folder reads it: a YAML
// frontmatter, if any, is dropped; the first "# " heading names the
// agent; the text is the identity. When the text opens with that heading
// followed by the "- model:", "- persona:", "- tools:" lines export
// writes, those set the agent's fields and are not part of the identity.
func parseAgentMD(text string) *identity {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if _, after, found := strings.Cut(rest, "\n---\n"); found {
			text = after
		}
	}
	id := &identity{body: text}
	lines := strings.Split(text, "\n")
	for _, l := range lines {
		if h, ok := strings.CutPrefix(l, "# "); ok && strings.TrimSpace(h) != "" {
			id.title = strings.TrimSpace(h)
			break
		}
	}
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) || !strings.HasPrefix(lines[i], "# ") {
		return id
	}
	j := i + 1
	for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
		j++
	}
	fields := 0
	for ; j < len(lines); j++ {
		m := agentMDField.FindStringSubmatch(lines[j])
		if m == nil {
			break
		}
		fields++
		switch m[1] {
		case "model":
			id.model = strings.TrimSpace(m[2])
		case "persona":
			id.persona = strings.TrimSpace(m[2])
		case "tools":
			for _, t := range strings.Split(m[2], ",") {
				if t = strings.TrimSpace(t); t != "" {
					id.tools = append(id.tools, t)
				}
			}
		}
	}
	if fields > 0 {
		id.body = strings.Join(lines[j:], "\n")
	}
	return id
}

// renderAgent writes the agent file: frontmatter, identity, skills.
func renderAgent(id *identity, items []*importedSkill) []byte {
	var b bytes.Buffer
	if id.head != nil {
		renderHead(&b, id)
	} else {
		renderFrontmatter(&b, id, items)
	}
	for _, it := range items {
		fmt.Fprintf(&b, "\n@plane z=%d kind=skill", it.z)
		for _, kv := range it.attrs {
			v, _ := attrValue(kv[1])
			fmt.Fprintf(&b, " %s=%s", kv[0], v)
		}
		b.WriteByte('\n')
		body := it.body
		if it.addDesc {
			body = export.InsertDescription(body, descriptionParagraph(it.desc))
		}
		if list := filesSection(it); list != "" {
			body = strings.TrimRight(body, "\n") + "\n\n" + list
		}
		body = strings.Trim(body, "\n")
		b.WriteString(apartFromDirective(body))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// renderHead writes back, key for key, the frontmatter and identity
// directive of the agent file an export was made from, then the identity.
func renderHead(b *bytes.Buffer, id *identity) {
	b.WriteString("---\n")
	for _, kv := range id.head.Frontmatter {
		fmt.Fprintf(b, "%s: %s\n", kv[0], frontValue(kv[1]))
	}
	fmt.Fprintf(b, "---\n@plane z=%s", id.z)
	if l := id.head.IdentityLabel; l != nil {
		fmt.Fprintf(b, " label=%s", frontValue(*l))
	}
	fmt.Fprintf(b, " kind=identity\n%s\n", apartFromDirective(id.body))
}

// apartFromDirective puts a blank line before a body whose first line
// would read as its directive wrapped onto a second line (a folder's
// SKILL.md may well start "tool=\"…\""): the parser trims it, so the body
// reads the same, and validate has no wrapped-directive to report.
func apartFromDirective(body string) string {
	first, _, _ := strings.Cut(body, "\n")
	if agentfile.ContinuesDirective(first) {
		return "\n" + body
	}
	return body
}

// renderFrontmatter writes a frontmatter made from AGENT.md (or the
// folder), then the identity plane.
func renderFrontmatter(b *bytes.Buffer, id *identity, items []*importedSkill) {
	b.WriteString("---\n3md: 1.0\n")
	fmt.Fprintf(b, "title: %s\n", frontValue(id.title))
	if id.model != "" && id.model != "unknown" {
		// "unknown" is the format's default (docs/format.md §7), which
		// export's AGENT.md spells out: written here, a second import
		// would differ from the first by a line that means nothing.
		fmt.Fprintf(b, "model: %s\n", frontValue(id.model))
	}
	if id.persona != "" {
		fmt.Fprintf(b, "persona: %s\n", frontValue(id.persona))
	}
	// The programs the commands run are tools the agent uses
	// (docs/format.md §12, undeclared-tool).
	tools := slices.Clone(id.tools)
	for _, it := range items {
		for _, kv := range it.attrs {
			if kv[0] != "tool" {
				continue
			}
			if bin := strings.Fields(kv[1]); len(bin) > 0 && !slices.Contains(tools, bin[0]) && !strings.ContainsAny(bin[0], `,"'\`) {
				tools = append(tools, bin[0])
			}
		}
	}
	if len(tools) > 0 {
		fmt.Fprintf(b, "tools: %s\n", frontValue(strings.Join(tools, ", ")))
	}
	b.WriteString("---\n")
	fmt.Fprintf(b, "@plane z=0 label=%s kind=identity\n%s\n", frontValue(id.title), apartFromDirective(id.body))
}
