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

	"github.com/agent3md/agent3md/internal/textclip"
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
		return fmt.Errorf("file path %q is over %d bytes", textclip.Bytes(p, quoteBytes), maxPathBytes)
	case !utf8.ValidString(p):
		return fmt.Errorf("file path %q is not valid UTF-8", textclip.Bytes(p, quoteBytes))
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("file path %q is absolute", textclip.Bytes(p, quoteBytes))
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("file path %q holds a NUL byte", textclip.Bytes(p, quoteBytes))
	case strings.ContainsRune(p, '\\'):
		return fmt.Errorf("file path %q holds a backslash", textclip.Bytes(p, quoteBytes))
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return fmt.Errorf("file path %q holds a control character", textclip.Bytes(p, quoteBytes))
	}
	parts := strings.Split(p, "/")
	if len(parts) > maxPathDepth {
		return fmt.Errorf("file path %q is more than %d folders deep", textclip.Bytes(p, quoteBytes), maxPathDepth)
	}
	for _, part := range parts {
		switch part {
		case "":
			return fmt.Errorf("file path %q has an empty element", textclip.Bytes(p, quoteBytes))
		case ".", "..":
			return fmt.Errorf("file path %q has a %q element, which could lead outside the skill folder", textclip.Bytes(p, quoteBytes), part)
		}
	}
	if p != path.Clean(p) {
		return fmt.Errorf("file path %q is not clean", textclip.Bytes(p, quoteBytes))
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
				return fmt.Errorf("file %q is listed twice", textclip.Bytes(p, quoteBytes))
			}
			return fmt.Errorf("files %q and %q differ only in case or Unicode normalization: one file on a case-insensitive file system", textclip.Bytes(q, quoteBytes), textclip.Bytes(p, quoteBytes))
		}
		seen[k] = p
	}
	dirs := map[string]string{}
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			k := foldKey(d)
			if q, clash := seen[k]; clash {
				return fmt.Errorf("%q is both a file and the folder of %q", textclip.Bytes(q, quoteBytes), textclip.Bytes(p, quoteBytes))
			}
			if q, ok := dirs[k]; ok && q != d {
				return fmt.Errorf("folders %q and %q differ only in case or Unicode normalization: one folder on a case-insensitive file system", textclip.Bytes(q, quoteBytes), textclip.Bytes(d, quoteBytes))
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
		return nil, fmt.Errorf("%q is not a skill:// URI", textclip.Bytes(uri, quoteBytes))
	}
	if strings.ContainsAny(rest, "?#") {
		return nil, fmt.Errorf("%q has a query or fragment", textclip.Bytes(uri, quoteBytes))
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		dec, err := url.PathUnescape(s)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", textclip.Bytes(uri, quoteBytes), err)
		}
		if strings.Contains(dec, "/") {
			return nil, fmt.Errorf("%q: an escaped / inside one path element", textclip.Bytes(uri, quoteBytes))
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
		return "", fmt.Errorf("%q is not a file inside the skill", textclip.Bytes(uri, quoteBytes))
	}
	for i, r := range root {
		if segs[i] != r {
			return "", fmt.Errorf("%q is not a file inside the skill's directory", textclip.Bytes(uri, quoteBytes))
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
		return fmt.Errorf("skill name %q is not a valid Agent Skills name (1-64 of a-z, 0-9 and single inner hyphens)", textclip.Bytes(name, quoteBytes))
	}
	return nil
}

// quoteBytes bounds what a message echoes of a string the server sent.
const quoteBytes = 120
