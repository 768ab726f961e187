package folderwrite

import (
	"fmt"

	"github.com/agent3md/agent3md/internal/testkit"
)

// write writes a file and its directories (testkit.WriteFile).
var write = testkit.WriteFile

// skillMD is a SKILL.md for the skill name, extra frontmatter lines and
// body.
func skillMD(name, extra, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: The %s skill.\n%s---\n%s", name, name, extra, body)
}
