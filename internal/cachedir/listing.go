package cachedir

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agent3md/agent3md/internal/bytesize"
)

// Label names an entry for people: its content hash, shortened, and the
// agent it was last used for; a stamp says what a stamp is.
func (e Entry) Label() string {
	switch {
	case e.Stamp:
		return "stamp " + shortHash(strings.TrimPrefix(e.Key, "stamp-")) + "  (an agent file's size and times, mapped to its content hash)"
	case len(e.Sources) == 0:
		return shortHash(e.Key) + "  (agent not recorded: cached by an earlier agent3md)"
	default:
		return fmt.Sprintf("%s  %s (%s)", shortHash(e.Key), e.Sources[0].Name, e.Sources[0].Path)
	}
}

// WriteList writes the cache at root for `agent3md cache size`: one line
// an entry, least recently used first, with its size, last use and label,
// the other agents it serves below it, then the total.
func WriteList(w io.Writer, root string) error {
	ents, err := Entries(root)
	if err != nil {
		return err
	}
	var total int64
	for _, e := range ents {
		total += e.Size
		fmt.Fprintf(w, "%10s  %s  %s\n", bytesize.Human(e.Size), e.Used.Format(time.DateTime), e.Label())
		for _, src := range e.Sources[min(1, len(e.Sources)):] {
			fmt.Fprintf(w, "%10s  %19s  %s  also %s (%s)\n", "", "", strings.Repeat(" ", 12), src.Name, src.Path)
		}
	}
	_, err = fmt.Fprintf(w, "%10s  total, %s in %s\n", bytesize.Human(total), entries(len(ents)), root)
	return err
}

// WritePruned says what Prune removed from root, what is left and why it
// stopped there: what is left fits maxSize, as the user wrote it.
func WritePruned(w io.Writer, root, maxSize string, removed []Entry) {
	var n int64
	for _, e := range removed {
		n += e.Size
		fmt.Fprintf(w, "removed %10s  %s\n", bytesize.Human(e.Size), e.Label())
	}
	kept, err := Entries(root)
	var k int64
	for _, e := range kept {
		k += e.Size
	}
	fmt.Fprintf(w, "removed %s (%s) from %s", entries(len(removed)), bytesize.Human(n), root)
	switch {
	case err != nil:
		fmt.Fprintf(w, "; could not list what is left: %v\n", err)
	case len(kept) == 0:
		fmt.Fprintln(w, "; the cache is empty")
	default:
		fmt.Fprintf(w, "; kept %s (%s): they fit in --max-size %s (pass --max-size 0 to empty the cache)\n", entries(len(kept)), bytesize.Human(k), maxSize)
	}
}

// entries counts cache entries in words.
func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

// shortHash is a content hash's first 12 digits, as git shortens commits.
func shortHash(h string) string { return h[:min(12, len(h))] }
