package skillsdir

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

var ctx = context.Background()

// pngBytes is the start of a PNG: its signature holds bytes no UTF-8 text
// has, and a NUL.
var pngBytes = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'}

func TestReadFile(t *testing.T) {
	root := copyTree(t, "tree")
	write(t, filepath.Join(root, "deploy", "assets", "logo.png"), string(pngBytes))
	write(t, filepath.Join(root, "deploy", "assets", "data.bin"), "plain words")
	write(t, filepath.Join(root, "deploy", "assets", "raw.bin"), "\x00\x01")
	c := scan(t, nil, root)
	tests := []struct {
		path, mime string
		text       bool
	}{
		{"SKILL.md", "text/markdown", true},
		{"references/build.md", "text/markdown", true},
		{"scripts/run.sh", "text/x-shellscript", true},
		{"assets/logo.png", "image/png", false},
		{"assets/data.bin", "text/plain", true},
		{"assets/raw.bin", "application/octet-stream", false},
		{"./scripts//run.sh", "text/x-shellscript", true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			ct, err := c.ReadFile(ctx, "deploy", tt.path)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(filepath.Join(root, "deploy", filepath.FromSlash(tt.path)))
			sum := sha256.Sum256(want)
			if string(ct.Data) != string(want) || ct.MIME != tt.mime || ct.Text != tt.text || ct.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
				t.Errorf("got %q %s text=%v %s", ct.Data, ct.MIME, ct.Text, ct.Digest)
			}
			if ct.File.Size != int64(len(want)) {
				t.Errorf("size %d, want %d", ct.File.Size, len(want))
			}
			d, _, err := c.Digest(ctx, "deploy", tt.path)
			if err != nil || d != ct.Digest {
				t.Errorf("Digest = %s, %v; want %s", d, err, ct.Digest)
			}
		})
	}
	body, s, err := c.Body(ctx, "deploy")
	if err != nil || !strings.HasPrefix(body, "# Deploy\n") || s.Name != "deploy" {
		t.Errorf("Body = %q, %v", body, err)
	}
}

func TestReadRefused(t *testing.T) {
	c := scan(t, nil, filepath.Join("testdata", "tree"))
	tests := []struct {
		skill, path string
		want        error
	}{
		{"deploy", "", ErrRefused},
		{"deploy", "/etc/passwd", ErrRefused},
		{"deploy", "../build/SKILL.md", ErrRefused},
		{"deploy", "references/../../build/SKILL.md", ErrRefused},
		{"deploy", "references/../SKILL.md", ErrRefused},
		{"deploy", "..", ErrRefused},
		{"deploy", `references\build.md`, ErrRefused},
		{"deploy", "SKILL.md\x00.png", ErrRefused},
		{"deploy", "references/missing.md", ErrNotFound},
		{"deploy", "references", ErrNotFound},
		{"nope", "SKILL.md", ErrNotFound},
		{"mismatch", "SKILL.md", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.skill+"/"+tt.path, func(t *testing.T) {
			if _, err := c.ReadFile(ctx, tt.skill, tt.path); !errors.Is(err, tt.want) {
				t.Errorf("ReadFile(%q, %q) = %v, want %v", tt.skill, tt.path, err, tt.want)
			}
		})
	}
}

func TestSymlinks(t *testing.T) {
	root := copyTree(t, "tree")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	write(t, outside, "secret")
	dep := filepath.Join(root, "deploy")
	links := map[string]string{
		"references/alias.md": "build.md",             // inside: served
		"references/escape":   outside,                // outside: refused
		"references/up.md":    "../../build/SKILL.md", // another skill's file: outside
		"references/dir":      "../scripts",           // a folder: not followed
		"references/dangling": "nowhere",
		"references/swap.md":  "build.md",                                   // swapped to escape after the scan
		"references/abs.md":   filepath.Join(dep, "references", "build.md"), // absolute: refused like an escape
		"scripts/chain.md":    "../references/alias.md",                     // a chain that stays inside: served
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dep, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	c := scan(t, nil, root)
	s := mustSkill(t, c, "deploy")
	want := []string{"SKILL.md", "references/alias.md", "references/build.md", "references/swap.md", "scripts/chain.md", "scripts/run.sh"}
	if !slices.Equal(paths(s), want) {
		t.Errorf("files %v, want %v", paths(s), want)
	}
	for _, tt := range []struct{ rule, path string }{
		{RuleSymlinkEscape, "references/escape"}, {RuleSymlinkEscape, "references/up.md"},
		{RuleSpecialFile, "references/dir"}, {RuleSymlinkEscape, "references/dangling"},
		{RuleSymlinkEscape, "references/abs.md"},
	} {
		if !hasFinding(s.Findings, tt.rule, filepath.FromSlash(tt.path)) {
			t.Errorf("no %s finding for %s in %v", tt.rule, tt.path, s.Findings)
		}
	}
	if ct, err := c.ReadFile(ctx, "deploy", "references/alias.md"); err != nil || !strings.HasPrefix(string(ct.Data), "# Build notes") {
		t.Errorf("inside symlink: %v", err)
	}
	if ct, err := c.ReadFile(ctx, "deploy", "scripts/chain.md"); err != nil || !strings.HasPrefix(string(ct.Data), "# Build notes") {
		t.Errorf("symlink chain inside: %v", err)
	}
	for _, p := range []string{"references/escape", "references/up.md", "references/abs.md"} {
		if _, err := c.ReadFile(ctx, "deploy", p); err == nil {
			t.Errorf("escaping symlink %s was read", p)
		}
	}
	swap := filepath.Join(dep, "references", "swap.md")
	if err := os.Remove(swap); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, swap); err != nil {
		t.Fatal(err)
	}
	ct, err := c.ReadFile(ctx, "deploy", "references/swap.md")
	if err == nil {
		t.Fatalf("symlink swapped to escape after the scan was read: %q", ct.Data)
	}
	if !errors.Is(err, ErrRefused) && !errors.Is(err, ErrNotFound) {
		t.Errorf("err = %v", err)
	}
}

// A symlinked skill folder (a user's ~/.claude/skills/x -> ~/src/x) is
// served, and its files are checked against the resolved folder.
func TestSymlinkedSkillFolder(t *testing.T) {
	src := copyTree(t, "tree")
	root := t.TempDir()
	if err := os.Symlink(filepath.Join(src, "deploy"), filepath.Join(root, "deploy")); err != nil {
		t.Fatal(err)
	}
	// A link back inside the root finds nothing new.
	if err := os.Symlink(root, filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	c := scan(t, nil, root)
	if got := names(c); !slices.Equal(got, []string{"deploy"}) {
		t.Fatalf("served %v", got)
	}
	if _, err := c.ReadFile(ctx, "deploy", "scripts/run.sh"); err != nil {
		t.Error(err)
	}
}

func TestSpecialFiles(t *testing.T) {
	root := copyTree(t, "tree")
	dep := filepath.Join(root, "deploy")
	if err := syscall.Mkfifo(filepath.Join(dep, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// A SKILL.md that is a FIFO: the skill is broken, the scan does not
	// hang on it.
	if err := os.MkdirAll(filepath.Join(root, "fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo", "SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := scan(t, nil, root)
	if _, ok := c.Skill("fifo"); ok || !hasFinding(c.Findings(), RuleSkillMD, filepath.Join("fifo", "SKILL.md")) {
		t.Errorf("FIFO SKILL.md: findings %v", c.Findings())
	}
	s := mustSkill(t, c, "deploy")
	if slices.Contains(paths(s), "pipe") || !hasFinding(s.Findings, RuleSpecialFile, "pipe") {
		t.Errorf("files %v findings %v", paths(s), s.Findings)
	}
	// A listed file replaced by a FIFO after the scan: refused, never
	// opened (an open would block without a writer).
	run := filepath.Join(dep, "scripts", "run.sh")
	if err := os.Remove(run); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(run, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReadFile(ctx, "deploy", "scripts/run.sh"); !errors.Is(err, ErrRefused) {
		t.Errorf("FIFO read: %v, want ErrRefused", err)
	}
}

func TestOversizedAtRead(t *testing.T) {
	root := copyTree(t, "tree")
	big := filepath.Join(root, "deploy", "assets", "big.bin")
	write(t, big, strings.Repeat("x", 2000))
	grow := filepath.Join(root, "deploy", "references", "build.md")
	c := scan(t, &Options{MaxFileBytes: 1000}, root)
	s := mustSkill(t, c, "deploy")
	if slices.Contains(paths(s), "assets/big.bin") || !hasFinding(s.Findings, RuleFileTooLarge, "big.bin") {
		t.Errorf("files %v findings %v", paths(s), s.Findings)
	}
	if _, err := c.ReadFile(ctx, "deploy", "assets/big.bin"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unlisted big file: %v", err)
	}
	write(t, grow, strings.Repeat("y", 1001))
	if _, err := c.ReadFile(ctx, "deploy", "references/build.md"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("file grown past the limit: %v, want ErrTooLarge", err)
	}
}

func TestChangedSinceScan(t *testing.T) {
	root := copyTree(t, "tree")
	dep := filepath.Join(root, "deploy")
	c := scan(t, nil, root)
	old := mustSkill(t, c, "deploy")
	d0, _, err := c.Digest(ctx, "deploy", "scripts/run.sh")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("file edited", func(t *testing.T) {
		write(t, filepath.Join(dep, "references", "build.md"), "# New notes, longer than before\n")
		ct, err := c.ReadFile(ctx, "deploy", "references/build.md")
		if err != nil || string(ct.Data) != "# New notes, longer than before\n" {
			t.Fatalf("ReadFile = %v", err)
		}
		if ct.Skill == old || ct.File.Size != int64(len(ct.Data)) {
			t.Errorf("the entry returned is not the re-scanned one (size %d)", ct.File.Size)
		}
		if cur := mustSkill(t, c, "deploy"); cur != ct.Skill {
			t.Error("the catalog does not hold the re-scanned skill")
		}
		// The unchanged file keeps its cached digest.
		if d, _, err := c.Digest(ctx, "deploy", "scripts/run.sh"); err != nil || d != d0 {
			t.Errorf("digest %s, %v; want %s", d, err, d0)
		}
	})
	t.Run("SKILL.md edited", func(t *testing.T) {
		write(t, filepath.Join(dep, "SKILL.md"), skillMD("deploy", "", "New body.\n"))
		body, s, err := c.Body(ctx, "deploy")
		if err != nil || body != "New body.\n" || s.Description != "The deploy skill." || len(s.Deps) != 0 {
			t.Errorf("Body = %q, %v; description %q deps %v", body, err, s.Description, s.Deps)
		}
	})
	t.Run("file removed", func(t *testing.T) {
		if err := os.Remove(filepath.Join(dep, "scripts", "run.sh")); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ReadFile(ctx, "deploy", "scripts/run.sh"); !errors.Is(err, ErrNotFound) {
			t.Errorf("removed file: %v", err)
		}
		if slices.Contains(paths(mustSkill(t, c, "deploy")), "scripts/run.sh") {
			t.Error("removed file still listed")
		}
	})
	t.Run("skill broken", func(t *testing.T) {
		write(t, filepath.Join(dep, "SKILL.md"), "---\nname: renamed\ndescription: x\n---\n")
		if _, err := c.ReadFile(ctx, "deploy", "SKILL.md"); !errors.Is(err, ErrNotFound) {
			t.Errorf("broken skill: %v", err)
		}
		if _, ok := c.Skill("deploy"); ok {
			t.Error("broken skill still served")
		}
		if !hasFinding(c.Findings(), RuleNameMismatch, "SKILL.md") {
			t.Errorf("findings %v", c.Findings())
		}
	})
}

// A skill folder replaced by another folder of the same name (a checkout
// switching branches) is re-scanned: its old files are not served.
func TestFolderReplaced(t *testing.T) {
	root := copyTree(t, "tree")
	dep := filepath.Join(root, "deploy")
	c := scan(t, nil, root)
	if err := os.Rename(dep, filepath.Join(root, "deploy-old")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dep, "SKILL.md"), skillMD("deploy", "", "Replaced.\n"))
	body, s, err := c.Body(ctx, "deploy")
	if err != nil || body != "Replaced.\n" || slices.Contains(paths(s), "scripts/run.sh") {
		t.Errorf("Body = %q, %v; files %v", body, err, paths(s))
	}
	if _, err := c.ReadFile(ctx, "deploy", "scripts/run.sh"); !errors.Is(err, ErrNotFound) {
		t.Errorf("old file: %v", err)
	}
}

func TestManifest(t *testing.T) {
	root := copyTree(t, "tree")
	c := scan(t, nil, root)
	s, digests, err := c.Manifest(ctx, "deploy")
	if err != nil || len(digests) != len(s.Files) {
		t.Fatalf("Manifest = %v, %v", digests, err)
	}
	for i, f := range s.Files {
		data, _ := os.ReadFile(filepath.Join(root, "deploy", filepath.FromSlash(f.Path)))
		sum := sha256.Sum256(data)
		if digests[i] != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Errorf("%s: %s", f.Path, digests[i])
		}
	}
	// A change after the scan: the manifest is the fresh skill's.
	write(t, filepath.Join(root, "deploy", "scripts", "run.sh"), "echo changed, and longer\n")
	s2, digests2, err := c.Manifest(ctx, "deploy")
	if err != nil || s2 == s || digests2[2] == digests[2] || digests2[0] != digests[0] {
		t.Errorf("after a change: %v %v, %v", digests2, err, s2 == s)
	}
	if _, _, err := c.Manifest(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown skill: %v", err)
	}
}

func TestSameRootTwice(t *testing.T) {
	root := filepath.Join("testdata", "tree")
	if c := scan(t, nil, root, root+"/"); c.Len() != 6 {
		t.Errorf("served %v", names(c))
	}
}
