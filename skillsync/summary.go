package skillsync

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agent3md/agent3md/internal/bytesize"
	"github.com/agent3md/agent3md/internal/termsafe"
	"github.com/agent3md/agent3md/skillsdir/folderwrite"
)

// summarySchema names the shape of the JSON summary: fields may be
// added under this name; removing one or changing its meaning changes it.
const summarySchema = "agent3md-sync/1"

// WriteJSON writes the summary as one JSON object (docs/sync.md §7).
func (s *Summary) WriteJSON(w io.Writer) error {
	type out struct {
		Schema string `json:"schema"`
		*Summary
		OK        bool    `json:"ok"`
		ElapsedMs float64 `json:"elapsedMs"`
	}
	c := *s
	for _, l := range []*[]string{&c.Added, &c.Updated, &c.Removed, &c.Unchanged, &c.Restored, &c.LeftStaged, &c.SkippedStaged} {
		if *l == nil {
			*l = []string{}
		}
	}
	for _, l := range []*[]Refusal{&c.Refused, &c.Kept} {
		if *l == nil {
			*l = []Refusal{}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out{Schema: summarySchema, Summary: &c, OK: s.OK(), ElapsedMs: float64(s.Elapsed.Microseconds()) / 1000})
}

// WriteText writes the summary for a person: what changed by name,
// unchanged skills by count, each refusal with its reason, then one line
// of totals. Names, URIs and reasons carry a server's text (and DIR's
// names), so each goes through termsafe.Show: a control character (an
// escape sequence that would retitle the terminal, a line break that
// would fake an "added" line) is written as \xNN, whatever the output
// is.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	verb := func(done, would string) string {
		if s.DryRun {
			return would
		}
		return done
	}
	fmt.Fprintf(&b, "%s %s -> %s (%s)\n", verb("synced", "dry run: would sync"), shown(s.Source), shown(s.Dir), shown(s.Via))
	list := func(label string, names []string) {
		for _, n := range names {
			fmt.Fprintf(&b, "  %-9s %s\n", label, shown(n))
		}
	}
	list(verb("added", "add"), s.Added)
	list(verb("updated", "update"), s.Updated)
	list(verb("removed", "remove"), s.Removed)
	for _, r := range s.Refused {
		fmt.Fprintf(&b, "  %-9s %s: %s\n", "refused", shown(r.Skill), shown(r.Reason))
	}
	for _, r := range s.Kept {
		fmt.Fprintf(&b, "  %-9s %s: %s\n", "kept", shown(r.Skill), shown(r.Reason))
	}
	list("restored", s.Restored)
	for _, d := range s.LeftStaged {
		fmt.Fprintf(&b, "  %-9s %s: %s\n", "left", shown(d), folderwrite.LeftAdvice)
	}
	for _, d := range s.SkippedStaged {
		fmt.Fprintf(&b, "  %-9s %s: %s\n", "skipped", shown(d), folderwrite.SkippedAdvice)
	}
	// A dry run's totals say what would happen, as its list does: "8
	// added" under a list of "add" lines read as if it had written.
	totals := "%d added, %d updated, %d removed, %d unchanged, %d refused"
	if s.DryRun {
		totals = "would add %d, update %d, remove %d; %d unchanged, %d refused"
	}
	fmt.Fprintf(&b, totals+"; %d requests, %s read, %d files, %.2fs\n",
		len(s.Added), len(s.Updated), len(s.Removed), len(s.Unchanged), len(s.Refused),
		s.Requests, bytesize.Human(s.Bytes), s.Files, s.Elapsed.Seconds())
	_, err := io.WriteString(w, b.String())
	return err
}

// shown is text from a server or DIR as a summary line may carry it.
func shown(s string) string {
	out, _ := termsafe.Show(s)
	return out
}

// Changed reports whether the pass added, updated or removed anything.
func (s *Summary) Changed() bool {
	return len(s.Added)+len(s.Updated)+len(s.Removed) > 0
}
