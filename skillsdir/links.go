package skillsdir

import (
	"bytes"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

var markdown = goldmark.New()

// bodyLinks returns the targets of a SKILL.md body's relative Markdown
// links, resolved against the skill folder dir and cleaned, in body order.
// Absolute URLs, absolute paths and same-page anchors are not links to
// another skill. The caller keeps only targets that are a served skill's
// folder or SKILL.md (Catalog.deps).
func bodyLinks(body []byte, dir string) []string {
	// Most bodies have no link at all; goldmark need not see them. "]("
	// opens an inline link, "]:" a reference definition.
	if !bytes.Contains(body, []byte("](")) && !bytes.Contains(body, []byte("]:")) {
		return nil
	}
	var out []string
	doc := markdown.Parser().Parse(text.NewReader(body))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering {
			if t, ok := relativeTarget(string(l.Destination), dir); ok {
				out = append(out, t)
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// relativeTarget resolves a link destination against dir when it is a
// relative path.
func relativeTarget(dest, dir string) (string, bool) {
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" || strings.HasPrefix(u.Path, "/") || strings.ContainsRune(u.Path, '\\') {
		return "", false
	}
	return filepath.Clean(filepath.Join(dir, filepath.FromSlash(u.Path))), true
}
