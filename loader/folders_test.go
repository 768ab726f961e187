package loader

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"github.com/agent3md/agent3md/internal/synth"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// pngBytes is the start of a PNG: not UTF-8, so a read must call it binary.
var pngBytes = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 0xff, 0xfe}

// copyFolders copies testdata/folders to a temporary folder and adds the
// binary asset lint/assets/logo.png, which is not committed.
func copyFolders(t testing.TB) string {
	t.Helper()
	dst := synth.CopyDir(t, "testdata/folders")
	if err := os.MkdirAll(filepath.Join(dst, "lint", "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "lint", "assets", "logo.png"), pngBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func openFolders(t testing.TB, opts *FolderOptions, roots ...string) *Agent {
	t.Helper()
	a, err := OpenFolders(context.Background(), roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func TestOpenFoldersCatalog(t *testing.T) {
	a := openFolders(t, nil, copyFolders(t))
	if got := a.Info().Name; got != "Fixture Tools" {
		t.Errorf("agent name %q, want the AGENT.md heading", got)
	}
	id, err := a.IdentityBody(context.Background())
	if err != nil || !strings.Contains(id, "A small agent made of skill folders") {
		t.Errorf("identity %q, %v", id, err)
	}
	skills := a.Skills()
	tests := []struct {
		name     string
		z        float64
		triggers []string
		inputs   int
		tool     string
		deps     []string
	}{
		{"build", 1, []string{"compile", "make"}, 0, "", []string{"lint"}},
		{"deploy", 2, []string{"ship it", "release"}, 2, "make deploy ENV={env} DRY={dry}", []string{"build"}},
		{"lint", 3, nil, 0, "", []string{"rules"}},
		{"rules", 4, nil, 0, "", []string{}},
	}
	if len(skills) != len(tests) {
		t.Fatalf("%d skills, want %d: %+v", len(skills), len(tests), skills)
	}
	for i, tc := range tests {
		s := skills[i]
		if s.Name != tc.name || s.Z != tc.z || s.Slug != tc.name {
			t.Errorf("skill %d: %s z=%v slug %s, want %s z=%v", i, s.Name, s.Z, s.Slug, tc.name, tc.z)
		}
		if !slices.Equal(s.Triggers, tc.triggers) && !(len(s.Triggers) == 0 && len(tc.triggers) == 0) {
			t.Errorf("%s: triggers %q, want %q", s.Name, s.Triggers, tc.triggers)
		}
		if len(s.Inputs) != tc.inputs || s.Tool != tc.tool {
			t.Errorf("%s: inputs %+v tool %q", s.Name, s.Inputs, s.Tool)
		}
		if !slices.Equal(s.Deps, tc.deps) {
			t.Errorf("%s: deps %q, want %q", s.Name, s.Deps, tc.deps)
		}
		if s.Description == "" {
			t.Errorf("%s: no description", s.Name)
		}
	}
	// The synthesized catalog answers lookups like a scanned one.
	if s, err := a.SkillByZ(2); err != nil || s.Name != "deploy" {
		t.Errorf("SkillByZ(2) = %v, %v", s, err)
	}
	snap := a.Snapshot()
	if snap.Len() != 4 || snap.Description(1) != "Deploy the app to an environment. Use when asked to ship or release." {
		t.Errorf("snapshot: %d skills, description %q", snap.Len(), snap.Description(1))
	}
	if fm := snap.Frontmatter(1); fm["name"] != "deploy" || fm["metadata"] == nil {
		t.Errorf("frontmatter %v", fm)
	}
	if got := a.Closest("deplyo", 1); !slices.Equal(got, []string{"deploy"}) {
		t.Errorf("Closest = %q", got)
	}
	if len(a.Catalog().SHA256) != 64 {
		t.Errorf("SHA256 %q", a.Catalog().SHA256)
	}
}

func TestOpenFoldersBodiesAndResolve(t *testing.T) {
	a := openFolders(t, nil, copyFolders(t))
	ctx := context.Background()
	body, err := a.Body(ctx, "deploy")
	if err != nil || !strings.HasPrefix(body, "# Deploy\n") || strings.Contains(body, "name: deploy") || strings.HasSuffix(body, "\n") {
		t.Fatalf("Body = %q, %v", body, err)
	}
	chain, err := a.Resolve(ctx, "deploy")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range chain {
		names = append(names, r.Name)
		if r.Body == "" {
			t.Errorf("%s: empty body", r.Name)
		}
	}
	if want := []string{"deploy", "build", "lint", "rules"}; !slices.Equal(names, want) {
		t.Errorf("Resolve(deploy) = %q, want %q", names, want)
	}
	if _, err := a.Body(ctx, "nope"); !errors.As(err, new(*UnknownSkillError)) {
		t.Errorf("unknown skill: %v", err)
	}
}

func TestOpenFoldersCommand(t *testing.T) {
	a := openFolders(t, nil, copyFolders(t))
	tests := []struct {
		values map[string]string
		ready  bool
		cmd    string
	}{
		{map[string]string{"env": "prod", "dry": "true"}, true, "make deploy ENV='prod' DRY='true'"},
		{map[string]string{}, false, ""},
		{map[string]string{"env": "prod", "dry": "maybe"}, false, ""},
	}
	for _, tc := range tests {
		f, err := a.Command("deploy", tc.values)
		if err != nil {
			t.Fatal(err)
		}
		if f.Ready != tc.ready || (tc.cmd != "" && f.Command != tc.cmd) {
			t.Errorf("Command(%v) = ready %v %q, want %v %q", tc.values, f.Ready, f.Command, tc.ready, tc.cmd)
		}
	}
	if f, err := a.Command("lint", nil); err != nil || f.HasTool {
		t.Errorf("lint has no tool: %+v, %v", f, err)
	}
}

func TestOpenFoldersFiles(t *testing.T) {
	dir := copyFolders(t)
	a := openFolders(t, &FolderOptions{NoRescan: true}, dir)
	ctx := context.Background()
	files, err := a.SkillFiles(ctx, "lint")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if want := []string{"SKILL.md", "assets/logo.png", "rules/SKILL.md"}; !slices.Equal(paths, want) {
		t.Fatalf("lint files %q, want %q", paths, want)
	}
	for _, slug := range []string{"build", "deploy", "lint", "rules"} {
		files, err := a.SkillFiles(ctx, slug)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, got, err := a.ReadSkillFile(ctx, slug, f.Path)
			if err != nil {
				t.Fatalf("%s/%s: %v", slug, f.Path, err)
			}
			want, _ := os.ReadFile(filepath.Join(dir, slug, filepath.FromSlash(f.Path)))
			if slug == "rules" {
				want, _ = os.ReadFile(filepath.Join(dir, "lint", "rules", filepath.FromSlash(f.Path)))
			}
			if !bytes.Equal(data, want) {
				t.Errorf("%s/%s: bytes differ from the file on disk", slug, f.Path)
			}
			sum := sha256.Sum256(data)
			if d := "sha256:" + hex.EncodeToString(sum[:]); d != f.Digest || d != got.Digest || int64(len(data)) != f.Size {
				t.Errorf("%s/%s: listed %s (%d bytes), read %s, bytes hash to %s", slug, f.Path, f.Digest, f.Size, got.Digest, d)
			}
		}
	}
	_, logo, err := a.ReadSkillFile(ctx, "lint", "assets/logo.png")
	if err != nil || logo.Text || logo.MIME != "image/png" {
		t.Errorf("logo.png: %+v, %v", logo, err)
	}
	_, sh, err := a.ReadSkillFile(ctx, "build", "scripts/build.sh")
	if err != nil || !sh.Text {
		t.Errorf("build.sh: %+v, %v", sh, err)
	}
	md, _, err := a.ReadSkillFile(ctx, "deploy", "SKILL.md")
	if err != nil || !bytes.HasPrefix(md, []byte("---\nname: deploy\n")) {
		t.Errorf("SKILL.md is not the file as on disk: %q, %v", md, err)
	}
	for _, p := range []string{"../build/SKILL.md", "/etc/passwd", "missing.md", "references"} {
		if _, _, err := a.ReadSkillFile(ctx, "deploy", p); !errors.Is(err, ErrNoSkillFile) {
			t.Errorf("ReadSkillFile(deploy, %q) = %v, want ErrNoSkillFile", p, err)
		}
	}
	if fm, err := a.Frontmatter("deploy"); err != nil || fm["description"] == nil {
		t.Errorf("Frontmatter = %v, %v", fm, err)
	}
}

// TestOpenFoldersChanges: the fingerprint follows every served file, a
// pinned Agent refuses changed bytes, and an unpinned one re-scans.
func TestOpenFoldersChanges(t *testing.T) {
	ctx := context.Background()
	dir := copyFolders(t)
	pinned := openFolders(t, &FolderOptions{NoRescan: true}, dir)
	live := openFolders(t, nil, dir)
	before := pinned.Catalog().SHA256
	if again := openFolders(t, nil, dir).Catalog().SHA256; again != before {
		t.Fatalf("two scans of the same folders differ: %s, %s", before, again)
	}
	// A binary asset is no body, yet a served byte: the key must move.
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, "lint", "assets", "logo.png"), append(pngBytes, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if after := openFolders(t, nil, dir).Catalog().SHA256; after == before {
		t.Error("SHA256 unchanged after an asset changed")
	}
	if err := os.WriteFile(filepath.Join(dir, "deploy", "SKILL.md"), []byte("---\nname: deploy\ndescription: Deploy, edited.\n---\nNew body.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := pinned.Body(ctx, "deploy"); !errors.Is(err, ErrStale) {
		t.Errorf("pinned Body after an edit = %v, want ErrStale", err)
	} else if msg := err.Error(); !strings.Contains(msg, "skills folder changed") || strings.Contains(msg, "agent file") {
		t.Errorf("pinned Body after an edit says %q; want it to speak of the skills folder, not an agent file", msg)
	}
	body, err := live.Body(ctx, "deploy")
	if err != nil || body != "New body." {
		t.Errorf("live Body after an edit = %q, %v", body, err)
	}
	if s := live.Skills()[1]; s.Description != "Deploy, edited." || len(s.Inputs) != 0 {
		t.Errorf("live catalog not re-scanned: %+v", s)
	}
}

func TestOpenFoldersProblems(t *testing.T) {
	ctx := context.Background()
	t.Run("clash", func(t *testing.T) {
		a, b := copyFolders(t), copyFolders(t)
		_, err := OpenFolders(ctx, []string{a, b}, nil)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(a, "build", "SKILL.md")) || !strings.Contains(err.Error(), filepath.Join(b, "build", "SKILL.md")) {
			t.Errorf("clash error %v, want both paths", err)
		}
	})
	t.Run("broken skill skipped", func(t *testing.T) {
		dir := copyFolders(t)
		os.MkdirAll(filepath.Join(dir, "bad"), 0o755)
		os.WriteFile(filepath.Join(dir, "bad", "SKILL.md"), []byte("---\nname: other\ndescription: x\n---\n"), 0o644)
		a := openFolders(t, nil, dir)
		if _, err := a.Skill("bad"); err == nil || len(a.Skills()) != 4 {
			t.Errorf("a broken skill is served: %d skills", len(a.Skills()))
		}
		if f := strings.Join(a.Findings(), "\n"); !strings.Contains(f, "name-mismatch") {
			t.Errorf("findings %q", f)
		}
	})
	t.Run("no AGENT.md", func(t *testing.T) {
		dir := copyFolders(t)
		os.Remove(filepath.Join(dir, "AGENT.md"))
		a := openFolders(t, nil, dir)
		id, _ := a.IdentityBody(ctx)
		if !strings.Contains(id, dir) || a.Info().Name != filepath.Base(dir) {
			t.Errorf("generated identity %q, name %q", id, a.Info().Name)
		}
	})
	t.Run("head agrees with the open", func(t *testing.T) {
		for _, withAgent := range []bool{true, false} {
			dir := copyFolders(t)
			if !withAgent {
				os.Remove(filepath.Join(dir, "AGENT.md"))
			}
			h, err := FolderHead([]string{dir}, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := openFolders(t, nil, dir)
			id, _ := a.IdentityBody(ctx)
			if h.Name != a.Info().Name || h.Identity != id || !h.IdentityKnown {
				t.Errorf("head %+v, open: name %q identity %q", h, a.Info().Name, id)
			}
		}
	})
	t.Run("no roots", func(t *testing.T) {
		if _, err := OpenFolders(ctx, nil, nil); err == nil {
			t.Error("no error")
		}
	})
	t.Run("not a directory", func(t *testing.T) {
		if _, err := OpenFolders(ctx, []string{"testdata/folders/AGENT.md"}, nil); err == nil {
			t.Error("no error")
		}
	})
}

// TestSkillFilesAgentFile: for an agent file the file API is the
// rendering, byte for byte.
func TestSkillFilesAgentFile(t *testing.T) {
	a := openText(t, "---\n3md: 1\n---\n@plane z=0 kind=identity\nMe.\n@plane z=1 label=one\nSee [[z=2]].\n@plane z=2 label=two\nTwo.\n")
	ctx := context.Background()
	r, err := a.SkillMDBySlug(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	files, err := a.SkillFiles(ctx, "one")
	if err != nil || len(files) != 3 || files[0].Path != "SKILL.md" || files[1].Path != "references/two.md" || files[2].Path != "references/AGENT.md" {
		t.Fatalf("files %+v, %v", files, err)
	}
	data, f, err := a.ReadSkillFile(ctx, "one", "SKILL.md")
	if err != nil || !bytes.Equal(data, r.Text) || f != files[0] || f.MIME != "text/markdown" {
		t.Errorf("SKILL.md read %+v, %v", f, err)
	}
	data, f, err = a.ReadSkillFile(ctx, "one", "references/two.md")
	if err != nil || !bytes.Equal(data, r.References[0].Text) || f != files[1] {
		t.Errorf("reference read %+v, %v", f, err)
	}
	if _, _, err := a.ReadSkillFile(ctx, "one", "references/one.md"); !errors.Is(err, ErrNoSkillFile) {
		t.Errorf("unserved path: %v", err)
	}
	if a.Folders() != nil || a.Findings() != nil {
		t.Error("an agent file has no folders")
	}
}

// BenchmarkFolderReadSkillMD reads one SKILL.md of a served folder through
// the file API, as resources/read does (docs/skill-folders.md §10).
func BenchmarkFolderReadSkillMD(b *testing.B) {
	a := openFolders(b, &FolderOptions{NoRescan: true}, copyFolders(b))
	ctx := context.Background()
	for b.Loop() {
		if _, _, err := a.ReadSkillFile(ctx, "deploy", "SKILL.md"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenFolders scans the fixture and synthesizes its catalog.
func BenchmarkOpenFolders(b *testing.B) {
	dir := copyFolders(b)
	for b.Loop() {
		a, err := OpenFolders(context.Background(), []string{dir}, &FolderOptions{NoRescan: true})
		if err != nil {
			b.Fatal(err)
		}
		a.Close()
	}
}
