package skillsync

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent3md/agent3md/mcpclient"
)

func TestCheckFilePath(t *testing.T) {
	for _, tt := range []struct{ path, err string }{
		{"SKILL.md", ""},
		{"references/build notes.md", ""},
		{"scripts/état.py", ""},
		{"", "empty"},
		{"../x", `".." element`},
		{"a/../../x", `".." element`},
		{"a/./x", `"." element`},
		{"/etc/passwd", "absolute"},
		{"a//b", "empty element"},
		{"a/", "empty element"},
		{"a\x00b", "NUL"},
		{`a\b`, "backslash"},
		{"a\nb", "control character"},
		{"a\x1b[31m", "control character"},
		{"\xff.md", "not valid UTF-8"},
		{".agent3md-export.json", "marker"},
		{strings.Repeat("a/", 20) + "x", "folders deep"},
		{strings.Repeat("x", 2000), "over 1024 bytes"},
	} {
		err := checkFilePath(tt.path)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("checkFilePath(%q) = %v, want %q", tt.path, err, tt.err)
		}
	}
}

func TestCheckCollisions(t *testing.T) {
	for _, tt := range []struct {
		paths []string
		err   string
	}{
		{[]string{"SKILL.md", "a.md", "b/a.md"}, ""},
		{[]string{"SKILL.md", "README.md", "readme.md"}, "differ only in case"},
		{[]string{"SKILL.md", "skill.md"}, "differ only in case"},
		{[]string{"SKILL.md", "Refs/a.md", "refs/b.md"}, "differ only in case"},
		{[]string{"SKILL.md", "caf\u00e9.md", "cafe\u0301.md"}, "Unicode normalization"},
		{[]string{"SKILL.md", "STRASSE.md", "straße.md"}, "differ only in case"},
		{[]string{"SKILL.md", "a", "a/b"}, "both a file and the folder"},
		{[]string{"SKILL.md", "A", "a/b"}, "both a file and the folder"},
		{[]string{"SKILL.md", "x", "x"}, "listed twice"},
	} {
		err := checkCollisions(tt.paths)
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("checkCollisions(%q) = %v, want %q", tt.paths, err, tt.err)
		}
	}
}

// A server serving names that would leave DIR, or that one file system
// or another cannot hold apart: each such skill is refused, nothing is
// written outside DIR, and the good skills are synced.
func TestSyncHostileNames(t *testing.T) {
	entry := func(uri string, files ...string) json.RawMessage {
		var res []any
		for _, f := range files {
			res = append(res, map[string]any{"uri": f, "digest": sha("x"), "size": 1})
		}
		name := strings.TrimSuffix(strings.TrimPrefix(uri, "skill://"), "/SKILL.md")
		b, _ := json.Marshal(map[string]any{"uri": uri, "frontmatter": map[string]any{"name": name}, "resources": res})
		return b
	}
	for _, tt := range []struct {
		name  string
		entry json.RawMessage
		want  string // in the refusal
	}{
		{"dotdot", entry("skill://evil/SKILL.md", "skill://evil/SKILL.md", "skill://evil/../../escape.md"), `".." element`},
		{"escaped dotdot", entry("skill://evil/SKILL.md", "skill://evil/SKILL.md", "skill://evil/%2e%2e/%2e%2e/escape.md"), `".." element`},
		{"escaped slash", entry("skill://evil/SKILL.md", "skill://evil/SKILL.md", "skill://evil/a%2F..%2F..%2Fx"), "escaped /"},
		{"absolute", entry("skill://evil/SKILL.md", "skill://evil/SKILL.md", "skill://evil//etc/passwd"), "absolute"},
		{"other skill", entry("skill://evil/SKILL.md", "skill://evil/SKILL.md", "skill://skill-00/SKILL.md"), "not a file inside"},
		{"nul", entry("skill://evil/SKILL.md", "skill://evil/SKILL.md", "skill://evil/a%00b"), "NUL"},
		{"case", entry("skill://evil/SKILL.md", "skill://evil/SKILL.md", "skill://evil/README.md", "skill://evil/readme.md"), "differ only in case"},
		{"marker", entry("skill://evil/SKILL.md", "skill://evil/SKILL.md", "skill://evil/.agent3md-export.json"), "marker"},
		{"no SKILL.md", entry("skill://evil/SKILL.md", "skill://evil/x.md"), "no SKILL.md"},
		{"bad name", entry("skill://Evil_Name/SKILL.md", "skill://Evil_Name/SKILL.md"), "not a valid Agent Skills name"},
		{"dotdot name", entry("skill://../SKILL.md", "skill://../SKILL.md"), "not a valid Agent Skills name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake("ext", library(1))
			f.cfg.Entries = []json.RawMessage{tt.entry}
			base := t.TempDir()
			dir := filepath.Join(base, "skills")
			sum := mustSync(t, f.serveHTTP(t), dir, nil)
			if sum.OK() || len(sum.Refused) != 1 || !strings.Contains(sum.Refused[0].Reason, tt.want) {
				t.Fatalf("refused %+v, want one refusal saying %q", sum.Refused, tt.want)
			}
			if join(sum.Added) != "skill-00" {
				t.Errorf("added %v, want the good skill", sum.Added)
			}
			entries, _ := os.ReadDir(base)
			if len(entries) != 1 {
				t.Errorf("%s holds %v: something was written beside DIR", base, entries)
			}
			if _, err := os.Stat(filepath.Join(dir, "evil")); !os.IsNotExist(err) {
				t.Errorf("the refused skill's folder exists: %v", err)
			}
		})
	}
}

// The same through _manifest paths and resource names.
func TestSyncHostileManifest(t *testing.T) {
	for _, bad := range []string{"../escape.md", "/etc/passwd", "a\x00b", "README.md"} {
		f := newFake("manifest", library(1))
		f.cfg.Skills["skill-00"][bad] = "x"
		f.cfg.Skills["skill-00"]["readme.md"] = "x"
		sum := mustSync(t, f.serveHTTP(t), t.TempDir(), nil)
		if refusedNames(sum) != "skill-00" {
			t.Errorf("%q: refused %v", bad, sum.Refused)
		}
	}
}

func FuzzRelPath(f *testing.F) {
	for _, s := range []string{"skill://a/SKILL.md", "skill://a/../x", "skill://a/%2e%2e/x", "skill://a/b%20c/d.md", "skill://a/%ff", "skill://a//x", "skill://a/x?y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		p, err := relPath([]string{"a"}, uri)
		if err != nil {
			return
		}
		if checkFilePath(p) != nil || !filepath.IsLocal(p) || strings.Contains(p, "..") && strings.Contains("/"+p+"/", "/../") {
			t.Fatalf("relPath(%q) = %q, which is not a safe path", uri, p)
		}
	})
}

// checkRemote holds an accepted listing to what a write may take.
func checkRemote(t *testing.T, r *remote, lim *Limits) {
	t.Helper()
	if r.Problem != "" {
		if len(r.Files) != 0 {
			t.Fatalf("a refused skill keeps %d files", len(r.Files))
		}
		return
	}
	if checkName(r.Name) != nil || len(r.Files) > lim.MaxSkillFiles {
		t.Fatalf("accepted %q with %d files", r.Name, len(r.Files))
	}
	var paths []string
	for _, f := range r.Files {
		if err := checkFilePath(f.Path); err != nil {
			t.Fatalf("accepted file path: %v", err)
		}
		if f.Size > lim.MaxFileBytes {
			t.Fatalf("accepted %s of %d bytes", f.Path, f.Size)
		}
		paths = append(paths, f.Path)
	}
	if len(paths) > 0 {
		if err := checkCollisions(paths); err != nil {
			t.Fatalf("accepted colliding paths: %v", err)
		}
	}
}

func FuzzEntry(f *testing.F) {
	f.Add(`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:` + strings.Repeat("ab", 32) + `","size":3}]}`)
	f.Add(`{"uri":"skill://p/a/SKILL.md","frontmatter":{"name":"a"},"resources":"dynamic"}`)
	f.Add(`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":[{"uri":"skill://a/../x","digest":"sha256:00","size":-1}]}`)
	lim := (&Limits{MaxSkillFiles: 8, MaxFileBytes: 1000}).withDefaults()
	f.Fuzz(func(t *testing.T, data string) {
		var e mcpclient.SkillEntry
		if json.Unmarshal([]byte(data), &e) != nil {
			return
		}
		r, _, err := fromEntry(e, &lim)
		if err == nil {
			checkRemote(t, r, &lim)
		}
	})
}

func FuzzManifest(f *testing.F) {
	f.Add(`{"skill":"a","files":[{"path":"SKILL.md","size":3,"hash":"sha256:` + strings.Repeat("ab", 32) + `"}]}`)
	f.Add(`{"skill":"a","files":[{"path":"../x","size":3,"hash":""},{"path":"README.md"},{"path":"readme.md"}]}`)
	lim := (&Limits{MaxSkillFiles: 8, MaxFileBytes: 1000}).withDefaults()
	f.Fuzz(func(t *testing.T, data string) {
		r, err := newRemote("skill://a/SKILL.md")
		if err != nil {
			t.Fatal(err)
		}
		r.applyManifest([]byte(data), &lim)
		checkRemote(t, r, &lim)
	})
}
