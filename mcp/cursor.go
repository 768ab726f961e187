package mcp

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/agent3md/agent3md/internal/textclip"
)

// Cursors are opaque to clients: base64url of "<kind><offset>:<fp>", where
// kind names the list (and the cursor's encoding version) and fp binds the
// cursor to what was listed — the agent file's content hash, and for a
// filtered list the filter. Nothing in it is per process, so any replica
// serving the same file decodes it (docs/protocol.md §9). One helper
// serves every list.
const (
	cursorListSkills = "ls1:"
	cursorResources  = "rl1:"
	cursorTemplates  = "rt1:"
	cursorPrompts    = "pl1:"
	cursorSkills     = "sk1:"
	cursorDirectory  = "dr1:"
)

func encodeCursor(kind string, next int, fp string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + strconv.Itoa(next) + ":" + fp))
}

// decodeCursor returns the offset a cursor of kind for fp points at, or
// false for anything else.
func decodeCursor(kind, cur, fp string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil || !bytes.HasPrefix(b, []byte(kind)) {
		return 0, false
	}
	pos, got, ok := strings.Cut(string(b[len(kind):]), ":")
	n, err := strconv.Atoi(pos)
	if !ok || err != nil || n < 0 || got != fp {
		return 0, false
	}
	return n, true
}

// page is one page of a protocol list (resources/list, prompts/list, …):
// the items [start, end) of total, and the cursor of the next page.
type page struct {
	start, end int
	next       string
}

// pageOf reads a list request's cursor and returns the page it names, size
// items long at most. noun names the items in the error for a cursor that
// is not one of this list's ("tool", "resource", …).
func pageOf(cursor *string, kind, fp, noun string, total, size int) (page, error) {
	start := 0
	if cursor != nil {
		n, ok := decodeCursor(kind, *cursor, fp)
		if !ok || n > total || total <= size {
			if total <= size {
				return page{}, errorf(codeInvalidParams, "Invalid params: unknown cursor %q (every %s is on the first page)", textclip.Bytes(*cursor, 60), noun)
			}
			return page{}, errorf(codeInvalidParams, "Invalid params: unknown cursor %q: pass the nextCursor of the previous answer of this list; a cursor also expires when the agent file changes, so list again without one", textclip.Bytes(*cursor, 60))
		}
		start = n
	}
	p := page{start: start, end: min(total, start+size)}
	if p.end < total {
		p.next = encodeCursor(kind, p.end, fp)
	}
	return p, nil
}

type listParams struct {
	Cursor *string `json:"cursor"`
}
