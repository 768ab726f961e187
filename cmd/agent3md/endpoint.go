package main

import (
	"path/filepath"
	"strings"
	"unicode"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/skillsdir"
)

// endpointSlug names the HTTP endpoint of an agent opened from file
// (docs/http.md §1): its display name when that is written in Latin
// letters, else the frontmatter's `agent` key, else the file's (or the
// skills folder's) name — so two agents with Chinese titles get two
// endpoints, not one /mcp/agent — and "agent" when none of them has a
// letter or digit to spell a slug with. A name that only partly slugs
// ("Café") counts as not Latin, so its `agent` key wins over a mangled
// "caf".
func endpointSlug(ag *loader.Agent, file string) string {
	candidates := []string{ag.Info().Name, ag.Catalog().Metadata["agent"], agentFileStem(file)}
	for _, c := range candidates {
		if s := skillsdir.Slugify(c); s != "" && sluggable(c) {
			return s
		}
	}
	for _, c := range candidates { // a partial slug beats none
		if s := skillsdir.Slugify(c); s != "" {
			return s
		}
	}
	return "agent"
}

// sluggable reports whether every letter and digit of name survives
// Slugify, which keeps ASCII only.
func sluggable(name string) bool {
	for _, r := range name {
		if r > unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// agentFileStem is a file's name without its extension, or a folder's name.
func agentFileStem(file string) string {
	base := filepath.Base(filepath.Clean(file))
	return strings.TrimSuffix(base, filepath.Ext(base))
}
