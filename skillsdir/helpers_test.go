package skillsdir

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent3md/agent3md/internal/testkit"
)

// copyTree copies testdata/<name> into a fresh temporary folder, so tests
// may add symlinks, FIFOs and large files and change files after a scan.
func copyTree(t testing.TB, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	src := filepath.Join("testdata", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// write writes a file and its directories (testkit.WriteFile).
var write = testkit.WriteFile

func scan(t testing.TB, opts *Options, roots ...string) *Catalog {
	t.Helper()
	c, err := Scan(context.Background(), roots, opts)
	if err != nil {
		t.Fatalf("Scan: %v", err)
	}
	return c
}

func names(c *Catalog) []string {
	var out []string
	for _, s := range c.Skills() {
		out = append(out, s.Name)
	}
	return out
}

func paths(s *Skill) []string {
	var out []string
	for _, f := range s.Files {
		out = append(out, f.Path)
	}
	return out
}

func mustSkill(t testing.TB, c *Catalog, name string) *Skill {
	t.Helper()
	s, ok := c.Skill(name)
	if !ok {
		t.Fatalf("skill %q not served; served %v; findings %v", name, names(c), c.Findings())
	}
	return s
}

// hasFinding reports a finding of rule on a path ending in suffix.
func hasFinding(fs []Finding, rule, suffix string) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool {
		return f.Rule == rule && (suffix == "" || len(f.Path) >= len(suffix) && f.Path[len(f.Path)-len(suffix):] == suffix)
	})
}

// skillMD is a minimal valid SKILL.md for a skill called name.
func skillMD(name, extra, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: The %s skill.\n%s---\n%s", name, name, extra, body)
}

// generate writes n skills under root, grouped 100 to a folder; skill i
// links to skill i-1.
func generate(t testing.TB, root string, n int) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		body := "Do the thing.\n"
		if i > 0 {
			body += fmt.Sprintf("After [the previous one](../../g%03d/skill-%05d/SKILL.md).\n", (i-1)/100, i-1)
		}
		dir := filepath.Join(root, fmt.Sprintf("g%03d", i/100), name)
		write(t, filepath.Join(dir, "SKILL.md"), skillMD(name, "metadata:\n  triggers: \"task "+name+"\"\n", body))
		if i%10 == 0 {
			write(t, filepath.Join(dir, "references", "notes.md"), "# Notes\n")
		}
	}
}
