package selftest_test

// The fake server's skills: served as resources (SKILL.md, _manifest,
// a {+path} template, skill://prompt-xml), as prompts with completion,
// and through the skills extension (skills/list, skills/get,
// resources/directory/read), in both eras. Each broken variant breaks
// one thing a client relies on.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Skill-serving variants: vSkills is correct, each other breaks one thing.
const (
	vSkills          = "skills"
	vSkillsDigest    = "skills-bad-digest"    // a wrong digest in skills/list and a wrong hash in a _manifest
	vSkillsSize      = "skills-bad-size"      // resources/list counts SKILL.md's size in characters
	vSkillsAlias     = "skills-listed-alias"  // lists the skill://<path> alias
	vSkillsSplit     = "skills-split-entry"   // skills/list splits an entry across two pages
	vSkillsEmpty     = "skills-empty-unknown" // an unknown resource reads as empty contents
	vSkillsNoName    = "skills-no-name"       // a SKILL.md frontmatter without name
	vSkillsXML       = "skills-bad-xml"       // skill://prompt-xml locates a skill that is not listed
	vSkillsMany      = "skills-many-values"   // completion answers 101 values
	vSkillsNoAlias   = "skills-no-alias"      // refuses the skill://<path> alias
	vSkillsLegacyTag = "skills-legacy-tag"    // legacy results carry resultType
)

// skillsVariants are the variants that serve skills.
var skillsVariants = []string{vSkills, vSkillsDigest, vSkillsSize, vSkillsAlias, vSkillsSplit,
	vSkillsEmpty, vSkillsNoName, vSkillsXML, vSkillsMany, vSkillsNoAlias, vSkillsLegacyTag}

type fakeFile struct {
	path string
	text string
	blob []byte
}

func (f fakeFile) bytes() []byte {
	if f.blob != nil {
		return f.blob
	}
	return []byte(f.text)
}

type fakeSkillDir struct {
	path    string
	desc    string
	files   []fakeFile
	dynamic bool
}

func (d fakeSkillDir) name() string { return d.path[strings.LastIndex(d.path, "/")+1:] }

// fakeSkillDirs is what the skills variants serve; the files are read
// back byte for byte, so the non-ASCII text makes sizes count UTF-8
// bytes, not characters.
func (s *fakeServer) fakeSkillDirs() []fakeSkillDir {
	docsFM := "name: docs\n"
	if s.variant == vSkillsNoName {
		docsFM = ""
	}
	return []fakeSkillDir{
		{path: "deploy", desc: "Deploy the app. Use when asked to ship.", files: []fakeFile{
			{path: "SKILL.md", text: "---\nname: deploy\ndescription: Deploy the app. Use when asked to ship.\nmetadata:\n  z: \"3\"\n---\n# Déploy\n\nRead [the build notes](references/build.md).\n"},
			{path: "references/build.md", text: "# Build notes — ünïcode\n"},
		}},
		{path: "team/triage", desc: "Triage an alert.", files: []fakeFile{
			{path: "SKILL.md", text: "---\nname: triage\ndescription: Triage an alert.\n---\n# Triage\n"},
			{path: "assets/logo.png", blob: []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0xff}},
		}},
		{path: "docs", desc: "Write docs.", dynamic: true, files: []fakeFile{
			{path: "SKILL.md", text: "---\n" + docsFM + "description: Write docs.\n---\n# Docs\n"},
		}},
	}
}

// fakeDigest is the sha256 digest of b.
func fakeDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// skillsCaps are the capabilities a skills variant declares.
func skillsCaps(caps map[string]any) {
	caps["resources"], caps["prompts"], caps["completions"] = map[string]any{}, map[string]any{}, map[string]any{}
	caps["extensions"] = map[string]any{"io.modelcontextprotocol/skills": map[string]any{"directoryRead": true}}
}

// fakeResultEra marks a result for its era: modern results get
// resultType, and cache hints where the revision wants them.
func (s *fakeServer) fakeResultEra(res map[string]any, method string, modern bool) map[string]any {
	if !modern {
		if s.variant == vSkillsLegacyTag {
			res["resultType"] = "complete"
		}
		return res
	}
	res["resultType"] = "complete"
	switch method {
	case "resources/list", "resources/read", "resources/templates/list", "skills/list", "skills/get":
		res["ttlMs"], res["cacheScope"] = 60000, "public"
	}
	return res
}

type fakeSkillParams struct {
	URI       string            `json:"uri"`
	Name      string            `json:"name"`
	Cursor    string            `json:"cursor"`
	Arguments map[string]string `json:"arguments"`
	Ref       struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
}

// skillsMethod answers the resources, prompts, completion and skills
// methods of a skills variant.
func (s *fakeServer) skillsMethod(method string, params json.RawMessage, modern bool) (any, int, string, any) {
	var p fakeSkillParams
	json.Unmarshal(params, &p)
	var res map[string]any
	var code int
	var msg string
	switch method {
	case "resources/list":
		res, code, msg = s.fakeResourceList(p.Cursor)
	case "resources/read":
		res, code, msg = s.fakeRead(p.URI, modern)
	case "resources/templates/list":
		res = map[string]any{"resourceTemplates": []any{map[string]any{"uriTemplate": "skill://{name}/{+path}", "name": "skill-file"}}}
	case "prompts/list", "prompts/get":
		res, code, msg = s.fakePrompts(method, p)
	case "completion/complete":
		res, code, msg = s.fakeComplete(p)
	case "skills/list":
		res, code, msg = s.fakeSkillsList(p.Cursor)
	case "skills/get":
		res, code, msg = s.fakeSkillsGet(p.URI)
	case "resources/directory/read":
		res, code, msg = s.fakeDirectory(p.URI)
	default:
		return nil, -32601, "Method not found: " + method, nil
	}
	if code != 0 {
		return nil, code, msg, map[string]any{"uri": p.URI}
	}
	if method == "completion/complete" || method == "prompts/get" || method == "resources/directory/read" {
		// Not cached, but modern still wants resultType.
		return s.fakeResultEra(res, "", modern), 0, "", nil
	}
	return s.fakeResultEra(res, method, modern), 0, "", nil
}

// fakeResourceList lists each skill's SKILL.md and _manifest, then
// skill://prompt-xml, in two pages.
func (s *fakeServer) fakeResourceList(cursor string) (map[string]any, int, string) {
	var all []any
	for _, d := range s.fakeSkillDirs() {
		md := d.files[0].bytes()
		size := len(md)
		if s.variant == vSkillsSize {
			size = utf8.RuneCount(md) // characters, not bytes
		}
		all = append(all,
			map[string]any{"uri": "skill://" + d.path + "/SKILL.md", "name": d.name(), "description": d.desc, "mimeType": "text/markdown", "size": size},
			map[string]any{"uri": "skill://" + d.path + "/_manifest", "name": d.name() + "-manifest", "mimeType": "application/json"})
		if s.variant == vSkillsAlias {
			all = append(all, map[string]any{"uri": "skill://" + d.path, "name": d.name() + "-alias"})
		}
	}
	all = append(all, map[string]any{"uri": "skill://prompt-xml", "name": "prompt-xml", "mimeType": "application/xml"})
	half := len(all) / 2
	switch cursor {
	case "":
		return map[string]any{"resources": all[:half], "nextCursor": "p2"}, 0, ""
	case "p2":
		return map[string]any{"resources": all[half:]}, 0, ""
	}
	return nil, -32602, "bad cursor"
}

// fakeRead reads a skill file, a skill's alias or manifest, or
// skill://prompt-xml.
func (s *fakeServer) fakeRead(uri string, modern bool) (map[string]any, int, string) {
	notFound := -32002
	if modern {
		notFound = -32602
	}
	one := func(c map[string]any) map[string]any { return map[string]any{"contents": []any{c}} }
	if uri == "skill://prompt-xml" {
		return one(map[string]any{"uri": uri, "mimeType": "application/xml", "text": s.fakePromptXML()}), 0, ""
	}
	rest, ok := strings.CutPrefix(uri, "skill://")
	for _, d := range s.fakeSkillDirs() {
		if !ok {
			break
		}
		if rest == d.path {
			if s.variant == vSkillsNoAlias {
				return nil, notFound, "no alias here"
			}
			return one(map[string]any{"uri": uri, "mimeType": "text/markdown", "text": d.files[0].text}), 0, ""
		}
		file, inside := strings.CutPrefix(rest, d.path+"/")
		if !inside {
			continue
		}
		if file == "_manifest" {
			return one(map[string]any{"uri": uri, "mimeType": "application/json", "text": s.fakeManifest(d)}), 0, ""
		}
		for _, f := range d.files {
			switch {
			case f.path != file:
			case f.blob != nil:
				return one(map[string]any{"uri": uri, "mimeType": "image/png", "blob": base64.StdEncoding.EncodeToString(f.blob)}), 0, ""
			default:
				return one(map[string]any{"uri": uri, "mimeType": "text/markdown", "text": f.text}), 0, ""
			}
		}
	}
	if s.variant == vSkillsEmpty {
		return map[string]any{"contents": []any{}}, 0, ""
	}
	return nil, notFound, "Resource not found: " + uri
}

func (s *fakeServer) fakeManifest(d fakeSkillDir) string {
	var files []any
	for _, f := range d.files {
		hash := fakeDigest(f.bytes())
		if s.variant == vSkillsDigest && f.path == "references/build.md" {
			hash = fakeDigest([]byte("something else"))
		}
		files = append(files, map[string]any{"path": f.path, "size": len(f.bytes()), "hash": hash})
	}
	b, _ := json.Marshal(map[string]any{"skill": d.name(), "files": files})
	return string(b)
}

func (s *fakeServer) fakePromptXML() string {
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, d := range s.fakeSkillDirs() {
		loc := "skill://" + d.path + "/SKILL.md"
		if s.variant == vSkillsXML && d.path == "docs" {
			loc = "skill://ghost/SKILL.md"
		}
		fmt.Fprintf(&b, "  <skill><name>%s</name><description>%s</description><location>%s</location></skill>\n", d.name(), d.desc, loc)
	}
	b.WriteString("</available_skills>\n")
	return b.String()
}

// fakePrompts serves one prompt per skill; deploy needs an env.
func (s *fakeServer) fakePrompts(method string, p fakeSkillParams) (map[string]any, int, string) {
	var prompts []any
	for _, d := range s.fakeSkillDirs() {
		pr := map[string]any{"name": d.name(), "description": d.desc}
		if d.name() == "deploy" {
			pr["arguments"] = []any{map[string]any{"name": "env", "description": "where to", "required": true}}
		}
		prompts = append(prompts, pr)
	}
	if method == "prompts/list" {
		return map[string]any{"prompts": prompts}, 0, ""
	}
	i := slices.IndexFunc(s.fakeSkillDirs(), func(d fakeSkillDir) bool { return d.name() == p.Name })
	if i < 0 {
		return nil, -32602, "Unknown prompt: " + p.Name
	}
	if p.Name == "deploy" && p.Arguments["env"] == "" {
		return nil, -32602, "missing required argument: env"
	}
	return map[string]any{"messages": []any{map[string]any{"role": "user",
		"content": map[string]any{"type": "text", "text": s.fakeSkillDirs()[i].files[0].text}}}}, 0, ""
}

func (s *fakeServer) fakeComplete(p fakeSkillParams) (map[string]any, int, string) {
	var pool []string
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "deploy" && p.Argument.Name == "env":
		pool = []string{"prod", "preview", "staging"}
		if s.variant == vSkillsMany {
			for i := range 101 {
				pool = append(pool, "env-"+strconv.Itoa(i))
			}
		}
	case p.Ref.Type == "ref/resource" && p.Ref.URI == "skill://{name}/{+path}" && p.Argument.Name == "name":
		for _, d := range s.fakeSkillDirs() {
			pool = append(pool, d.path)
		}
	case p.Ref.Type == "ref/prompt" || p.Ref.Type == "ref/resource":
	default:
		return nil, -32602, "bad ref"
	}
	values := []string{}
	for _, v := range pool {
		if strings.HasPrefix(v, p.Argument.Value) {
			values = append(values, v)
		}
	}
	return map[string]any{"completion": map[string]any{"values": values, "total": len(values), "hasMore": false}}, 0, ""
}

// fakeSkillEntry is the skills extension's entry for d.
func (s *fakeServer) fakeSkillEntry(d fakeSkillDir) map[string]any {
	fm := map[string]any{"name": d.name(), "description": d.desc}
	if d.path == "deploy" {
		fm["metadata"] = map[string]any{"z": "3"}
	}
	e := map[string]any{"uri": "skill://" + d.path + "/SKILL.md", "frontmatter": fm}
	if d.dynamic {
		e["resources"] = "dynamic"
		return e
	}
	var refs []any
	for _, f := range d.files {
		digest := fakeDigest(f.bytes())
		if s.variant == vSkillsDigest && f.path == "references/build.md" {
			digest = fakeDigest([]byte("something else"))
		}
		refs = append(refs, map[string]any{"uri": "skill://" + d.path + "/" + f.path, "digest": digest, "size": len(f.bytes())})
	}
	e["resources"] = refs
	return e
}

// fakeSkillsList gives one skill per page; vSkillsSplit gives the first
// skill's resources on two pages.
func (s *fakeServer) fakeSkillsList(cursor string) (map[string]any, int, string) {
	dirs := s.fakeSkillDirs()
	i := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 || n >= len(dirs)+1 {
			return nil, -32602, "bad cursor"
		}
		i = n
	}
	var entry map[string]any
	switch {
	case s.variant == vSkillsSplit && i <= 1:
		entry = s.fakeSkillEntry(dirs[0])
		refs := entry["resources"].([]any)
		entry["resources"] = refs[i : i+1]
	case s.variant == vSkillsSplit:
		entry = s.fakeSkillEntry(dirs[i-1])
	default:
		entry = s.fakeSkillEntry(dirs[i])
	}
	res := map[string]any{"skills": []any{entry}}
	last := len(dirs) - 1
	if s.variant == vSkillsSplit {
		last = len(dirs)
	}
	if i < last {
		res["nextCursor"] = strconv.Itoa(i + 1)
	}
	return res, 0, ""
}

func (s *fakeServer) fakeSkillsGet(uri string) (map[string]any, int, string) {
	for _, d := range s.fakeSkillDirs() {
		if uri == "skill://"+d.path+"/SKILL.md" {
			return map[string]any{"skill": s.fakeSkillEntry(d)}, 0, ""
		}
	}
	return nil, -32602, "No skill is served at " + uri
}

// fakeDirectory lists a skill root's direct children.
func (s *fakeServer) fakeDirectory(uri string) (map[string]any, int, string) {
	for _, d := range s.fakeSkillDirs() {
		if uri != "skill://"+d.path {
			continue
		}
		var children []any
		seen := map[string]bool{}
		for _, f := range d.files {
			first, _, nested := strings.Cut(f.path, "/")
			if seen[first] {
				continue
			}
			seen[first] = true
			child := map[string]any{"uri": uri + "/" + first, "name": first}
			if nested {
				child["mimeType"] = "inode/directory"
			}
			children = append(children, child)
		}
		return map[string]any{"resources": children}, 0, ""
	}
	return nil, -32602, "not a directory: " + uri
}
