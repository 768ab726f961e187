package importer

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/agent3md/agent3md/agentfile"
	"github.com/agent3md/agent3md/skillsdir/export"
)

// importDoc wraps a body, made ready by import's text helpers, between an
// identity and a last plane, as import does.
func importDoc(body string) string {
	return "---\n3md: 1.0\ntitle: t\n---\n@plane z=0 kind=identity\nIdentity.\n\n" +
		"@plane z=1 label=\"a\" kind=skill triggers=\"a\"\n" + body + "\n\n" +
		"@plane z=2 label=\"b\" kind=skill triggers=\"b\"\nLast.\n"
}

// FuzzImportBody: whatever a SKILL.md body holds, once import's helpers
// have made it ready it stays the one plane's body — no plane is hidden or
// added — and its only links are the ones rewriteLinks made.
func FuzzImportBody(f *testing.F) {
	for _, s := range []string{
		"plain", "@plane z=9\nx", "```\n@plane z=9\n", "~~~\n", "[[z=2]] and [[z=0|x]]",
		"[b](../b/SKILL.md) `[c](../b)` ![i](../b/SKILL.md)", "a\r@plane z=3", "@plane\r\nx",
		"    [indented](../b)\n\n```\n[fenced](../b)\n```", "[x\\]y](../b) [](../b) [[t](../b)](u)",
		"[t][r] [r][] [r] [r]: x\n[r]: ../b/SKILL.md\n [R ]:  <../b>", "[a]:\n[a][a]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if len(body) > 1<<16 {
			return
		}
		body = normalizeNewlines(body)
		body, _ = neutralizeLinks(body, nil)
		made := 0
		body, made, _ = rewriteLinks(body, func(dest, _ string) (string, bool) {
			return "2", strings.Contains(dest, "b")
		}, nil)
		body, _, _ = sanitizeBody(body)
		cat, err := agentfile.Parse(strings.NewReader(importDoc(body)), nil)
		if err != nil {
			var le *agentfile.LimitError
			if asLimit(err, &le) {
				return
			}
			t.Fatalf("does not parse: %v\nbody %q", err, body)
		}
		if len(cat.Planes) != 3 {
			t.Fatalf("%d planes, want 3\nbody %q", len(cat.Planes), body)
		}
		links := cat.AllLinks()
		if len(links) != made {
			t.Fatalf("%d links, want the %d made\nbody %q", len(links), made, body)
		}
		for _, l := range links {
			if l.TargetZ != 2 {
				t.Fatalf("link to z=%v\nbody %q", l.TargetZ, body)
			}
		}
		if r := agentfile.Validate(cat); !r.OK() {
			t.Fatalf("does not validate: %+v\nbody %q", r.Errors, body)
		}
	})
}

// FuzzDescriptionParagraph: the paragraph import writes for a description
// reads back, as the plane's description, as the description itself, and
// export takes it out again.
func FuzzDescriptionParagraph(f *testing.F) {
	for _, s := range []string{
		"Deploy the app.", "# not a heading", "1. list", "- bullet", "a *b* _c_ `d` [e](f) <g> &amp; \\",
		"@plane z=1", "[[z=1]]", "~~~ fence", "=== x", "> quote", "&#65; &x; & ;", "10) x", "日本語 ✓",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, desc string) {
		desc = strings.Join(strings.Fields(desc), " ")
		if desc == "" || !utf8.ValidString(desc) || utf8.RuneCountInString(desc) > agentfile.MaxDescriptionRunes ||
			strings.IndexFunc(desc, func(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }) >= 0 {
			return
		}
		const own = "# Title\n\nThe body."
		body, _, _ := sanitizeBody(export.InsertDescription(own, descriptionParagraph(desc)))
		if back := export.RemoveDescription(body); back != own {
			t.Fatalf("the description paragraph does not come out again:\n got %q\nwant %q", back, own)
		}
		cat, err := agentfile.Parse(strings.NewReader(importDoc(body)), nil)
		if err != nil || len(cat.Planes) != 3 {
			t.Fatalf("does not parse as 3 planes (%v)\nbody %q", err, body)
		}
		if got := cat.Planes[1].Description; got != desc {
			t.Fatalf("description\n got %q\nwant %q\nbody %q", got, desc, body)
		}
	})
}

func asLimit(err error, le **agentfile.LimitError) bool { return errors.As(err, le) }
