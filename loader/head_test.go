package loader

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadHead: the head of a file names the agent and its identity
// exactly as a full Open does, and says so when it cannot know the
// identity.
func TestReadHead(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.3md")
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files = append(files,
		write("late-identity.3md", "---\n3md: 1.0\nagent: late\n---\n@plane z=1 kind=skill triggers=\"a\"\n# A\n\n@plane z=0 kind=identity\nI am late.\n"),
		write("no-identity.3md", "---\n3md: 1.0\ntitle: Plain\n---\n@plane z=0\nFirst plane stands in.\n"),
		write("preamble.3md", "---\n3md: 1.0\n---\nOnly a preamble.\n"),
	)
	for _, f := range files {
		h, err := ReadHead(f, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		a, err := Open(f, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		body, err := a.IdentityBody(context.Background())
		a.Close()
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != a.Info().Name {
			t.Errorf("%s: head name %q, Open %q", f, h.Name, a.Info().Name)
		}
		late := filepath.Base(f) == "late-identity.3md"
		if h.IdentityKnown == late {
			t.Errorf("%s: IdentityKnown %v", f, h.IdentityKnown)
		}
		if h.IdentityKnown && h.Identity != body {
			t.Errorf("%s: head identity %q, Open %q", f, h.Identity, body)
		}
	}
	if _, err := ReadHead(dir, nil); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadHead(directory): %v, want ErrNotRegular", err)
	}
	if _, err := ReadHead(write("bad.3md", "no frontmatter\n"), nil); err == nil {
		t.Error("ReadHead accepted a file without frontmatter")
	}
}

// TestScannedAndNames: Scanned's reading and SkillNames agree with the
// skill list, and SkillNames is the caller's to modify.
func TestScannedAndNames(t *testing.T) {
	a, err := Open("../examples/devtools.3md", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	cat, info := a.Scanned()
	if cat != a.Catalog() || info != a.Info() {
		t.Fatal("Scanned differs from Catalog and Info")
	}
	names := a.SkillNames()
	skills := a.Skills()
	if len(names) != len(skills) || len(names) == 0 {
		t.Fatalf("%d names for %d skills", len(names), len(skills))
	}
	for i := range names {
		if names[i] != skills[i].Name || info.Skills[i].Name != names[i] {
			t.Fatalf("skill %d: name %q, Skills %q, Info %q", i, names[i], skills[i].Name, info.Skills[i].Name)
		}
	}
	names[0] = "changed"
	if a.SkillNames()[0] == "changed" {
		t.Fatal("SkillNames shares its slice with the agent")
	}
}
