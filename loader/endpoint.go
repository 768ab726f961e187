package loader

import (
	"path/filepath"
	"strings"
	"unicode"

	"github.com/agent3md/agent3md/skillsdir/export"
)

// EndpointSlug names the agent in a URL path, as `agent3md serve` names
// its endpoint /mcp/<slug> (docs/http.md §1): its display name when that
// is written in Latin letters, else the frontmatter's `agent` key, else
// its file's (or first skills folder's) name without the extension — so
// two agents with Chinese titles get two endpoints, not one /mcp/agent —
// and "agent" when none of them has a letter or digit to spell a slug
// with. A name that only partly slugs ("Café") counts as not Latin, so
// its `agent` key wins over a mangled "caf".
func (a *Agent) EndpointSlug() string {
	base := filepath.Base(filepath.Clean(a.path))
	candidates := []string{a.Info().Name, a.Catalog().Metadata["agent"], strings.TrimSuffix(base, filepath.Ext(base))}
	for _, c := range candidates {
		if s := export.Slugify(c); s != "" && sluggable(c) {
			return s
		}
	}
	for _, c := range candidates { // a partial slug beats none
		if s := export.Slugify(c); s != "" {
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
