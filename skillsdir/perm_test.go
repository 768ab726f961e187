//go:build unix

package skillsdir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent3md/agent3md/internal/filestat"
)

// A file this user may not read is not listed: listed, it would fail the
// skill's manifest, and with it skills/list and resources/list of the
// whole server. readable asks for a user that owns nothing here, so the test
// means the same when run as root.
func TestUnreadableFileNotListed(t *testing.T) {
	saved := readable
	readable = func(fi os.FileInfo) bool { return filestat.ReadableBy(fi, 64999, []int{64999}) }
	t.Cleanup(func() { readable = saved })
	root := t.TempDir()
	dir := filepath.Join(root, "locked")
	write(t, filepath.Join(dir, "SKILL.md"), skillMD("locked", "", ""))
	write(t, filepath.Join(dir, "notes.md"), "notes")
	write(t, filepath.Join(dir, "secret.txt"), "secret")
	if err := os.Chmod(filepath.Join(dir, "secret.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := scan(t, nil, root)
	s := mustSkill(t, c, "locked")
	if got := paths(s); !slices.Equal(got, []string{"SKILL.md", "notes.md"}) {
		t.Errorf("files %v, want SKILL.md and notes.md only", got)
	}
	if !hasFinding(s.Findings, RuleUnreadable, "secret.txt") {
		t.Errorf("no %s finding for secret.txt: %v", RuleUnreadable, s.Findings)
	}
}

// A file made unreadable after the scan: the manifest re-scans the skill
// instead of failing. Only a user other than root can be refused a read.
func TestUnreadableAfterScan(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "locked")
	write(t, filepath.Join(dir, "SKILL.md"), skillMD("locked", "", ""))
	write(t, filepath.Join(dir, "secret.txt"), "secret")
	c := scan(t, nil, root)
	if err := os.Chmod(filepath.Join(dir, "secret.txt"), 0); err != nil {
		t.Fatal(err)
	}
	s, digests, err := c.Manifest(ctx, "locked")
	if err != nil {
		t.Fatalf("Manifest: %v", err)
	}
	if got := paths(s); !slices.Equal(got, []string{"SKILL.md"}) || len(digests) != 1 {
		t.Errorf("files %v digests %v, want SKILL.md only", got, digests)
	}
}
