package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestGetSkillFile: get_skill with file serves the same bytes as
// resources/read of the skill's file, for a skills folder and for an
// agent file's rendering alike; a binary file is named by its resource
// URI, an unserved path lists the served ones, and an empty file is the
// instructions, as a model that fills every argument sends it.
func TestGetSkillFile(t *testing.T) {
	// get_skill answers with one text block and no structured content
	// (docs/protocol.md §4): a file's bytes reach the model as they are.
	get := func(t *testing.T, s *server, args map[string]any) (string, bool) {
		t.Helper()
		wire, res := callTool(t, s, toolGetSkill, args)
		var w map[string]json.RawMessage
		if err := json.Unmarshal(wire, &w); err != nil {
			t.Fatal(err)
		}
		if _, ok := w["structuredContent"]; ok || len(res.Content) != 1 {
			t.Fatalf("%v: %d content blocks, structured content %s; want one text block alone", args, len(res.Content), w["structuredContent"])
		}
		return res.Content[0].Text, res.IsError
	}

	t.Run("folder", func(t *testing.T) {
		a, _ := openFolderAgent(t)
		s := newServer(&Options{Source: Loaded(a)})
		sess := newSession(nil)
		want, _, _ := readBytes(t, s, sess, "skill://deploy/references/runbook.md")
		for _, file := range []string{"references/runbook.md", "./references/runbook.md"} {
			text, isErr := get(t, s, map[string]any{"name": "deploy", "file": file})
			if isErr || text != string(want) {
				t.Errorf("file %q: isError %v, text %.80q; want the runbook as resources/read serves it", file, isErr, text)
			}
		}
		md, _, _ := readBytes(t, s, sess, "skill://lint/SKILL.md")
		if text, isErr := get(t, s, map[string]any{"name": "lint", "file": "SKILL.md"}); isErr || text != string(md) {
			t.Errorf("SKILL.md: isError %v, text %.80q; want the file with its frontmatter", isErr, text)
		}
		text, isErr := get(t, s, map[string]any{"name": "lint", "file": "assets/logo.png"})
		if !isErr || !strings.Contains(text, "skill://lint/assets/logo.png") {
			t.Errorf("a binary file: isError %v, %q; want an error naming its resource URI", isErr, text)
		}
		for _, bad := range []string{"../deploy/SKILL.md", "/etc/passwd", "references/nope.md"} {
			text, isErr := get(t, s, map[string]any{"name": "deploy", "file": bad})
			if !isErr || !strings.Contains(text, "references/runbook.md") || !strings.Contains(text, "SKILL.md") {
				t.Errorf("file %q: isError %v, %q; want an error listing the files deploy serves", bad, isErr, text)
			}
		}
		body, _ := get(t, s, map[string]any{"name": "deploy"})
		if text, isErr := get(t, s, map[string]any{"name": "deploy", "file": ""}); isErr || text != body {
			t.Errorf(`file "": isError %v, %.80q; want the instructions, as without file`, isErr, text)
		}
		if text, isErr := get(t, s, map[string]any{"name": "deplyo", "file": "SKILL.md"}); !isErr || !strings.Contains(text, "closest: deploy") {
			t.Errorf("an unknown skill with a file: isError %v, %q", isErr, text)
		}
	})

	t.Run("agent file", func(t *testing.T) {
		a := openAda(t)
		s := newServer(&Options{Source: Loaded(a)})
		sess := newSession(nil)
		name := a.Skills()[0].Name
		slug, err := a.Slug(name)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := readBytes(t, s, sess, "skill://"+slug+"/SKILL.md")
		if text, isErr := get(t, s, map[string]any{"name": name, "file": "SKILL.md"}); isErr || text != string(want) {
			t.Errorf("SKILL.md of %s: isError %v, %.80q; want its rendering", name, isErr, text)
		}
	})
}
