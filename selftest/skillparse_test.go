package selftest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/internal/digest"
)

func TestSkillPathOf(t *testing.T) {
	tests := []struct {
		uri, want string
		ok        bool
	}{
		{"skill://deploy/SKILL.md", "deploy", true},
		{"skill://team/ops/triage/SKILL.md", "team/ops/triage", true},
		{"skill://SKILL.md", "", false},
		{"skill:///SKILL.md", "", false},
		{"skill://a//b/SKILL.md", "", false},
		{"skill://deploy", "", false},
		{"skill://deploy/_manifest", "", false},
		{"file:///x/deploy/SKILL.md", "", false},
		{"skill://deploy/skill.md", "", false},
	}
	for _, tt := range tests {
		got, ok := skillPathOf(tt.uri)
		if got != tt.want || ok != tt.ok {
			t.Errorf("skillPathOf(%q) = %q, %v; want %q, %v", tt.uri, got, ok, tt.want, tt.ok)
		}
	}
	if got := lastSegment("team/ops/triage"); got != "triage" {
		t.Errorf("lastSegment = %q", got)
	}
}

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name, text string
		wantName   string
		wantErr    string
	}{
		{name: "plain", text: "---\nname: deploy\ndescription: d\n---\n# Body\n", wantName: "deploy"},
		{name: "crlf", text: "---\r\nname: deploy\r\n---\r\nbody", wantName: "deploy"},
		{name: "closing at the end", text: "---\nname: x\n---", wantName: "x"},
		{name: "no opening line", text: "# Deploy\n---\nname: x\n---\n", wantErr: "does not start with a \"---\" line"},
		{name: "leading blank line", text: "\n---\nname: x\n---\n", wantErr: "does not start"},
		{name: "unclosed", text: "---\nname: x\n", wantErr: "no closing \"---\" line"},
		{name: "not yaml", text: "---\nname: [x\n---\n", wantErr: "not YAML"},
		{name: "a list, not a mapping", text: "---\n- a\n---\n", wantErr: "not YAML"},
		{name: "empty", text: "---\n---\n", wantErr: "not a YAML mapping"},
		{name: "no name", text: "---\ndescription: d\n---\n", wantErr: "has no name"},
		{name: "numeric name", text: "---\nname: 12\n---\n", wantErr: "not a non-empty string"},
		{name: "huge", text: "---\n" + strings.Repeat("a: b\n", maxFrontmatterBytes/4) + "---\n", wantErr: "within the first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, err := parseFrontmatter(tt.text)
			name := ""
			if err == nil {
				name, err = frontmatterName(fm)
			}
			switch {
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v", err)
			case name != tt.wantName:
				t.Fatalf("name %q, want %q", name, tt.wantName)
			}
		})
	}
}

func TestParseManifest(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		name, text, wantErr string
	}{
		{name: "fine", text: `{"skill":"d","files":[{"path":"SKILL.md","size":3,"hash":"` + hash + `"}]}`},
		// The convention does not fix the hex case.
		{name: "upper-case hex", text: `{"skill":"d","files":[{"path":"SKILL.md","size":3,"hash":"sha256:` + strings.Repeat("AB", 32) + `"}]}`},
		{name: "no files", text: `{"skill":"d"}`, wantErr: "no \"files\" array"},
		{name: "no SKILL.md", text: `{"skill":"d","files":[{"path":"a.md","size":3,"hash":"` + hash + `"}]}`, wantErr: "SKILL.md is not among"},
		{name: "escaping path", text: `{"skill":"d","files":[{"path":"../x","size":3,"hash":"` + hash + `"}]}`, wantErr: "not a relative path inside"},
		{name: "no size", text: `{"skill":"d","files":[{"path":"SKILL.md","hash":"` + hash + `"}]}`, wantErr: "needs a size"},
		{name: "short hash", text: `{"skill":"d","files":[{"path":"SKILL.md","size":3,"hash":"sha256:ab"}]}`, wantErr: "hash"},
		{name: "not JSON", text: `<xml/>`, wantErr: "not a {\"skill\",\"files\"} JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseManifest(tt.text)
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestParsePromptXML(t *testing.T) {
	tests := []struct {
		name, text, wantErr string
		want                int
	}{
		{name: "fine", want: 2, text: "<available_skills><skill><name>a</name><description>d</description><location>skill://a/SKILL.md</location></skill>" +
			"<skill><name>b</name><description>e</description><location>skill://b/SKILL.md</location></skill></available_skills>"},
		{name: "empty", text: "<available_skills/>", want: 0},
		{name: "wrong root", text: "<skills><skill/></skills>", wantErr: "<available_skills> root"},
		{name: "no location", text: "<available_skills><skill><name>a</name><description>d</description></skill></available_skills>", wantErr: "<skill> #1 has no <location>"},
		{name: "blank name", text: "<available_skills><skill><name> </name><description>d</description><location>x</location></skill></available_skills>", wantErr: "has no <name>"},
		{name: "not XML", text: "{}", wantErr: "not XML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePromptXML(tt.text)
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if err == nil && len(got) != tt.want {
				t.Fatalf("%d skills, want %d", len(got), tt.want)
			}
		})
	}
}

func TestParseSkillEntry(t *testing.T) {
	md := "---\nname: deploy\n---\n"
	ref := func(uri, content string) string {
		return `{"uri":"` + uri + `","digest":"` + digest.Of([]byte(content)) + `","size":` + jsonInt(len(content)) + `}`
	}
	good := ref("skill://ops/deploy/SKILL.md", md)
	tests := []struct {
		name, entry, wantErr string
	}{
		{name: "fine", entry: `{"uri":"skill://ops/deploy/SKILL.md","frontmatter":{"name":"deploy"},"resources":[` + good + `]}`},
		{name: "dynamic", entry: `{"uri":"skill://deploy/SKILL.md","frontmatter":{"name":"deploy"},"resources":"dynamic"}`},
		{name: "other string", entry: `{"uri":"skill://deploy/SKILL.md","frontmatter":{"name":"deploy"},"resources":"all"}`, wantErr: `the only string allowed is "dynamic"`},
		{name: "no resources", entry: `{"uri":"skill://deploy/SKILL.md","frontmatter":{"name":"deploy"}}`, wantErr: "resources must be an array"},
		{name: "name differs", entry: `{"uri":"skill://ops/deploy/SKILL.md","frontmatter":{"name":"ops"},"resources":[` + good + `]}`, wantErr: `frontmatter name "ops" differs from the skill path's last segment "deploy"`},
		{name: "no frontmatter", entry: `{"uri":"skill://deploy/SKILL.md","resources":"dynamic"}`, wantErr: "frontmatter must be an object"},
		{name: "not SKILL.md", entry: `{"uri":"skill://deploy/README.md","frontmatter":{"name":"deploy"},"resources":"dynamic"}`, wantErr: "is not a <skill root>/SKILL.md URI"},
		{name: "SKILL.md not among resources", entry: `{"uri":"skill://ops/deploy/SKILL.md","frontmatter":{"name":"deploy"},"resources":[` + ref("skill://ops/deploy/a.md", "x") + `]}`, wantErr: "does not list the skill's own SKILL.md"},
		{name: "file outside", entry: `{"uri":"skill://ops/deploy/SKILL.md","frontmatter":{"name":"deploy"},"resources":[` + good + `,` + ref("skill://ops/other/a.md", "x") + `]}`, wantErr: "outside the skill's root"},
		{name: "file twice", entry: `{"uri":"skill://ops/deploy/SKILL.md","frontmatter":{"name":"deploy"},"resources":[` + good + `,` + good + `]}`, wantErr: "twice"},
		{name: "upper-case digest", entry: `{"uri":"skill://ops/deploy/SKILL.md","frontmatter":{"name":"deploy"},"resources":[{"uri":"skill://ops/deploy/SKILL.md","digest":"sha256:` + strings.Repeat("AB", 32) + `","size":1}]}`, wantErr: "64 lowercase hex"},
		{name: "over 16 MiB", entry: `{"uri":"skill://d/SKILL.md","frontmatter":{"name":"d"},"resources":[{"uri":"skill://d/SKILL.md","digest":"sha256:` + strings.Repeat("ab", 32) + `","size":16777217}]}`, wantErr: "over the 16777216"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSkillEntry(json.RawMessage(tt.entry))
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestSkillEntryLimit(t *testing.T) {
	e := skillEntry{URI: "skill://d/SKILL.md"}
	size := int64(1)
	for i := range maxSkillEntries + 1 {
		e.Resources = append(e.Resources, skillFileRef{URI: "skill://d/f" + jsonInt(i), Digest: digest.Of(nil), Size: &size})
	}
	if err := fileRefsProblem(e); err == nil || !strings.Contains(err.Error(), "513 resources, over the 512") {
		t.Fatalf("error %v", err)
	}
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestCompletionProblem(t *testing.T) {
	tests := []struct {
		name, raw, wantErr string
	}{
		{name: "fine", raw: `{"completion":{"values":["a","b"],"total":2,"hasMore":false}}`},
		{name: "bare values", raw: `{"completion":{"values":[]}}`},
		{name: "no completion", raw: `{"values":[]}`, wantErr: "no completion.values array"},
		{name: "total not integer", raw: `{"completion":{"values":["a"],"total":"1"}}`, wantErr: "total is \"1\""},
		{name: "total below the values", raw: `{"completion":{"values":["a","b"],"total":1}}`, wantErr: "≥ the 2 values"},
		{name: "hasMore not boolean", raw: `{"completion":{"values":[],"hasMore":"no"}}`, wantErr: "hasMore is \"no\""},
		{name: "value not a string", raw: `{"completion":{"values":[1]}}`, wantErr: "values[0] is 1"},
		{name: "101 values", raw: `{"completion":{"values":[` + strings.TrimSuffix(strings.Repeat(`"v",`, 101), ",") + `]}}`, wantErr: "101 values, over the 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, problem := completionProblem(json.RawMessage(tt.raw))
			if (tt.wantErr == "") != (problem == "") || !strings.Contains(problem, tt.wantErr) {
				t.Fatalf("problem %q, want %q", problem, tt.wantErr)
			}
		})
	}
}

func TestEraProblem(t *testing.T) {
	tests := []struct {
		name    string
		modern  bool
		method  string
		raw     string
		wantErr string
	}{
		{name: "legacy plain", method: "skills/list", raw: `{"skills":[]}`},
		{name: "legacy tagged", method: "skills/list", raw: `{"resultType":"complete","skills":[]}`, wantErr: "carries resultType"},
		{name: "modern cached", modern: true, method: "resources/read", raw: `{"resultType":"complete","contents":[],"ttlMs":0,"cacheScope":"private"}`},
		{name: "modern without cache hints", modern: true, method: "skills/get", raw: `{"resultType":"complete","skill":{}}`, wantErr: "ttlMs must be an integer"},
		{name: "modern uncached", modern: true, method: "resources/directory/read", raw: `{"resultType":"complete","resources":[]}`},
		{name: "modern untagged", modern: true, method: "resources/directory/read", raw: `{"resources":[]}`, wantErr: "needs resultType \"complete\", got none"},
		{name: "not an object", method: "skills/list", raw: `[]`, wantErr: "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problem := eraProblem(tt.modern, tt.method, json.RawMessage(tt.raw))
			if (tt.wantErr == "") != (problem == "") || !strings.Contains(problem, tt.wantErr) {
				t.Fatalf("problem %q, want %q", problem, tt.wantErr)
			}
		})
	}
}

func TestDirectoryProblem(t *testing.T) {
	root := "skill://ops/deploy"
	res := func(uris ...string) []resourceInfo {
		var out []resourceInfo
		for _, u := range uris {
			out = append(out, resourceInfo{URI: u})
		}
		return out
	}
	tests := []struct {
		name     string
		children []resourceInfo
		wantErr  string
	}{
		{name: "fine", children: res(root+"/SKILL.md", root+"/references", root+"/assets/")},
		{name: "grandchild", children: res(root+"/SKILL.md", root+"/references/a.md"), wantErr: "not a direct child"},
		{name: "outside", children: res(root+"/SKILL.md", "skill://ops/other/SKILL.md"), wantErr: "not a direct child"},
		{name: "no SKILL.md", children: res(root + "/references"), wantErr: "does not list SKILL.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problem := directoryProblem(root, tt.children)
			if (tt.wantErr == "") != (problem == "") || !strings.Contains(problem, tt.wantErr) {
				t.Fatalf("problem %q, want %q", problem, tt.wantErr)
			}
		})
	}
}

func TestReadContentBytes(t *testing.T) {
	text, blob, bad := "é", "AAH/", "!!"
	tests := []struct {
		name string
		c    readContent
		want string
		ok   bool
	}{
		{"text counts UTF-8 bytes", readContent{Text: &text}, "\xc3\xa9", true},
		{"blob is decoded", readContent{Blob: &blob}, "\x00\x01\xff", true},
		{"bad base64", readContent{Blob: &bad}, "", false},
		{"both", readContent{Text: &text, Blob: &blob}, "", false},
		{"neither", readContent{}, "", false},
	}
	for _, tt := range tests {
		got, err := tt.c.Bytes()
		if string(got) != tt.want || (err == nil) != tt.ok {
			t.Errorf("%s: %q, %v", tt.name, got, err)
		}
	}
}

func TestSameJSON(t *testing.T) {
	fm, err := parseFrontmatter("---\nname: d\nmetadata:\n  z: \"3\"\n  n: 2\n---\n")
	if err != nil {
		t.Fatal(err)
	}
	var listed map[string]any
	json.Unmarshal([]byte(`{"metadata":{"n":2,"z":"3"},"name":"d"}`), &listed)
	if !sameJSON(fm, listed) {
		t.Errorf("a frontmatter and its JSON form differ")
	}
	json.Unmarshal([]byte(`{"metadata":{"n":2,"z":3},"name":"d"}`), &listed)
	if sameJSON(fm, listed) {
		t.Errorf("a quoted \"3\" equals the number 3")
	}
}

// FuzzSkillParsers feeds the skill parsers arbitrary server text: each
// returns a value or an error, never panics.
func FuzzSkillParsers(f *testing.F) {
	for _, s := range []string{
		"---\nname: deploy\ndescription: d\n---\n# Body\n",
		`{"skill":"d","files":[{"path":"SKILL.md","size":3,"hash":"sha256:00"}]}`,
		"<available_skills><skill><name>a</name><description>d</description><location>skill://a/SKILL.md</location></skill></available_skills>",
		`{"uri":"skill://d/SKILL.md","frontmatter":{"name":"d"},"resources":"dynamic"}`,
		`{"completion":{"values":["a"],"total":1,"hasMore":false}}`,
		"skill://a/b/SKILL.md",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if fm, err := parseFrontmatter(s); err == nil {
			frontmatterName(fm)
			sameJSON(fm, fm)
		}
		parseManifest(s)
		parsePromptXML(s)
		parseSkillEntry(json.RawMessage(s))
		completionProblem(json.RawMessage(s))
		eraProblem(true, "skills/list", json.RawMessage(s))
		if p, ok := skillPathOf(s); ok {
			if seg := lastSegment(p); strings.Contains(seg, "/") {
				t.Errorf("lastSegment(%q) = %q holds a slash", p, seg)
			}
			directoryProblem(skillScheme+p, []resourceInfo{{URI: s}})
		}
	})
}
