package skillsdir

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestBodyLinks(t *testing.T) {
	dir := filepath.FromSlash("/r/a")
	tests := []struct {
		name, body string
		want       []string // slash paths
	}{
		{"none", "plain text", nil},
		{"inline", "see [b](../b/SKILL.md) and [c](../c/)", []string{"/r/b/SKILL.md", "/r/c"}},
		{"reference", "see [b][ref]\n\n[ref]: ../b/\n", []string{"/r/b"}},
		{"fragment and query", "[b](../b/SKILL.md#use) [c](../c?x=1)", []string{"/r/b/SKILL.md", "/r/c"}},
		{"escaped", "[b](../my%20skill/)", []string{"/r/my skill"}},
		{"own file", "[n](references/n.md)", []string{"/r/a/references/n.md"}},
		{"not relative", "[u](https://x/y) [m](mailto:a@b) [p](/etc/x) [h](#top)", nil},
		{"in code", "```\n[b](../b/)\n```\n`[c](../c/)`", nil},
		{"image", "![b](../b/SKILL.md)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.FromSlash(w))
			}
			if got := bodyLinks([]byte(tt.body), dir); !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// Links resolve to served skills only, once each, never to the skill
// itself; a skill that leaves the catalog drops out of others' deps on
// their next re-scan.
func TestDeps(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a", "SKILL.md"), skillMD("a", "", "[b](../b/SKILL.md) [b again](../b) [self](./) [c](../c/) [gone](../gone/SKILL.md) [x](../x/notes.md)\n"))
	write(t, filepath.Join(root, "b", "SKILL.md"), skillMD("b", "", ""))
	write(t, filepath.Join(root, "c", "SKILL.md"), skillMD("c", "", "[a](../a/SKILL.md)\n"))
	write(t, filepath.Join(root, "x", "SKILL.md"), skillMD("x", "", ""))
	c := scan(t, nil, root)
	if got := mustSkill(t, c, "a").Deps; !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("a deps %v", got)
	}
	if got := mustSkill(t, c, "c").Deps; !slices.Equal(got, []string{"a"}) {
		t.Errorf("c deps %v (cycles are kept for the resolver to report)", got)
	}
}

func FuzzBodyLinks(f *testing.F) {
	f.Add([]byte("see [b](../b/SKILL.md) and [c][r]\n\n[r]: ../c/\n"))
	f.Add([]byte("[x](<../a b/>) ![i](../i.png) [u](http://x)"))
	dir := filepath.FromSlash("/r/a")
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, target := range bodyLinks(body, dir) {
			if target != filepath.Clean(target) || !filepath.IsAbs(target) {
				t.Fatalf("target %q is not a clean absolute path", target)
			}
		}
	})
}

func FuzzCleanRel(f *testing.F) {
	for _, s := range []string{"SKILL.md", "a/../b", "./a//b", "/etc/passwd", "a\\b", "..", "a/.", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		got, err := cleanRel(rel)
		if err != nil {
			return
		}
		if got == "" || strings.HasPrefix(got, "/") || strings.ContainsAny(got, "\\\x00") || slices.Contains(strings.Split(got, "/"), "..") {
			t.Fatalf("cleanRel(%q) = %q", rel, got)
		}
	})
}
