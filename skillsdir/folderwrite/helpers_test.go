package folderwrite

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// skillMD is a SKILL.md for the skill name, extra frontmatter lines and
// body.
func skillMD(name, extra, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: The %s skill.\n%s---\n%s", name, name, extra, body)
}
