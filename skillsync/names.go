package skillsync

import (
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// Names a server gives are someone else's input, and they become paths
// under DIR (docs/sync.md §5): each is checked before anything is fetched.

const skillScheme = "skill://"

// maxPathBytes bounds one file path inside a skill; maxPathDepth its
// folders. Real skills nest two or three levels.
const (
	maxPathBytes = 1024
	maxPathDepth = 16
)

// checkFilePath refuses a file path that is not a plain relative slash
// path inside the skill folder: empty, absolute, with a "." or ".."
// element, an empty element, a backslash, a NUL or another control
// character, bytes that are not UTF-8, or over the bounds above; then
// what the writer never writes into a skill folder (skillsdir's
// CheckFilePath: a hidden element such as .git, an element over 255
// bytes, the marker's name), so such a path refuses its skill here,
// before anything is fetched, and the other skills sync.
func checkFilePath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("an empty file path")
	case len(p) > maxPathBytes:
		return fmt.Errorf("file path %q is over %d bytes", clip(p), maxPathBytes)
	case !utf8.ValidString(p):
		return fmt.Errorf("file path %q is not valid UTF-8", clip(p))
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("file path %q is absolute", clip(p))
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("file path %q holds a NUL byte", clip(p))
	case strings.ContainsRune(p, '\\'):
		return fmt.Errorf("file path %q holds a backslash", clip(p))
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return fmt.Errorf("file path %q holds a control character", clip(p))
	}
	parts := strings.Split(p, "/")
	if len(parts) > maxPathDepth {
		return fmt.Errorf("file path %q is more than %d folders deep", clip(p), maxPathDepth)
	}
	for _, part := range parts {
		switch part {
		case "":
			return fmt.Errorf("file path %q has an empty element", clip(p))
		case ".", "..":
			return fmt.Errorf("file path %q has a %q element, which could lead outside the skill folder", clip(p), part)
		}
	}
	if p != path.Clean(p) {
		return fmt.Errorf("file path %q is not clean", clip(p))
	}
	return folderwrite.CheckFilePath(p)
}

// foldKey is the name a case-insensitive, normalization-insensitive file
// system (macOS, Windows) gives one file: two paths with one key are one
// file there.
func foldKey(p string) string {
	return cases.Fold().String(norm.NFC.String(p))
}

// checkCollisions refuses a skill whose paths would name one file twice
// on such a system (README.md beside readme.md, é composed and
// decomposed), or a file that is also a folder of another path. It is
// checked on every system, so a library syncs the same everywhere.
func checkCollisions(paths []string) error {
	seen := make(map[string]string, len(paths))
	for _, p := range paths {
		k := foldKey(p)
		if q, dup := seen[k]; dup {
			if q == p {
				return fmt.Errorf("file %q is listed twice", clip(p))
			}
			return fmt.Errorf("files %q and %q differ only in case or Unicode normalization: one file on a case-insensitive file system", clip(q), clip(p))
		}
		seen[k] = p
	}
	dirs := map[string]string{}
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			k := foldKey(d)
			if q, clash := seen[k]; clash {
				return fmt.Errorf("%q is both a file and the folder of %q", clip(q), clip(p))
			}
			if q, ok := dirs[k]; ok && q != d {
				return fmt.Errorf("folders %q and %q differ only in case or Unicode normalization: one folder on a case-insensitive file system", clip(q), clip(d))
			}
			dirs[k] = d
		}
	}
	return nil
}

// uriSegments splits a skill URI (skill://<skill-path>/<rest>) into its
// decoded segments; the scheme is required. A segment that does not
// decode, or decodes to something a path element cannot be, is an error.
func uriSegments(uri string) ([]string, error) {
	rest, ok := strings.CutPrefix(uri, skillScheme)
	if !ok || rest == "" {
		return nil, fmt.Errorf("%q is not a skill:// URI", clip(uri))
	}
	if strings.ContainsAny(rest, "?#") {
		return nil, fmt.Errorf("%q has a query or fragment", clip(uri))
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		dec, err := url.PathUnescape(s)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", clip(uri), err)
		}
		if strings.Contains(dec, "/") {
			return nil, fmt.Errorf("%q: an escaped / inside one path element", clip(uri))
		}
		segs[i] = dec
	}
	return segs, nil
}

// relPath is the file path of uri inside the skill whose root (decoded
// segments) is root: uri must be below it.
func relPath(root []string, uri string) (string, error) {
	segs, err := uriSegments(uri)
	if err != nil {
		return "", err
	}
	if len(segs) <= len(root) {
		return "", fmt.Errorf("%q is not a file inside the skill", clip(uri))
	}
	for i, r := range root {
		if segs[i] != r {
			return "", fmt.Errorf("%q is not a file inside the skill's directory", clip(uri))
		}
	}
	p := strings.Join(segs[len(root):], "/")
	if err := checkFilePath(p); err != nil {
		return "", err
	}
	return p, nil
}

// checkName refuses a skill name that is not a valid Agent Skills name:
// it becomes the folder's name under DIR.
func checkName(name string) error {
	if !folderwrite.ValidName(name) {
		return fmt.Errorf("skill name %q is not a valid Agent Skills name (1-64 of a-z, 0-9 and single inner hyphens)", clip(name))
	}
	return nil
}

// clip shortens what a server sent for a message.
func clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	n := 120
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
