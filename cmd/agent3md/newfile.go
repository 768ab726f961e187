package main

import (
	"strings"
	"unicode"

	"github.com/agent3md/agent3md/skillsdir/export"
)

// defaultNewFile is the file `new NAME` writes: NAME.3md when a shell
// takes NAME as it is, else the agent's slug (what serve names its
// endpoint: "Release Helper" is release-helper.3md, served at
// /mcp/release-helper), so every later command can name the file
// without quotes. A NAME whose letters a slug would drop (小帮 助手) keeps
// them, with its spaces turned to dashes.
func defaultNewFile(name string) string {
	name = strings.TrimSpace(name)
	if shellWord(name) == name {
		return name + ".3md"
	}
	ascii := true
	for _, r := range name {
		if r > unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			ascii = false
		}
	}
	if s := export.Slugify(name); s != "" && ascii {
		return s + ".3md"
	}
	return strings.Join(strings.Fields(name), "-") + ".3md"
}
