package agentfile

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agent3md/agent3md/internal/editdist"
)

// RuleMisspeltKey (warning): a directive attribute, a frontmatter key or
// a kind= value one or two letters away from one agent3md reads. The
// format keeps unknown keys and ignores them (docs/format.md §7), so
// "lable=" or "triger=" leaves a skill without its name or triggers and
// nothing else says why.
const RuleMisspeltKey = "misspelt-key"

// planeKeys are the directive keys agent3md reads (docs/format.md §3, §8,
// §9); frontKeys the frontmatter keys (§2, §7).
var (
	planeKeys = []string{"label", "kind", "triggers", "inputs", "tool", "cost"}
	frontKeys = []string{"title", "agent", "model", "tools", "persona", "version", "entry", "triggers", "axis"}
)

// nearKey returns the known key that key is a likely misspelling of: not
// itself known, and within two edits of a longer key (a plural, a dropped
// or swapped letter), or one edit of a key of up to four letters with the
// same first letter ("tools" for tool, not "host" for cost: a short custom
// key is as likely as a slip). A swap of two neighbouring letters is one
// edit.
func nearKey(key string, known []string) (string, bool) {
	return closeKey(key, known, 2)
}

// nearFrontKey is nearKey for frontmatter keys, which 3md documents use
// freely for their own metadata ("site", "event", "session", "file"): one
// edit at most, and the first letter kept. Measured on the 306 documents
// of CorvidLabs/3md, two edits called "event" a slip for agent, "site" and
// "file" for title and "session" for version.
func nearFrontKey(key string) (string, bool) {
	return closeKey(key, frontKeys, 1)
}

// closeKey is nearKey with the most edits a key longer than four letters
// may be away.
func closeKey(key string, known []string, most int) (string, bool) {
	// Nearly every key is a known one: answer it before any distance is
	// computed, so a 100,000-skill agent's validation allocates nothing
	// here.
	for _, k := range known {
		if key == k {
			return "", false
		}
	}
	best, bestD := "", most+1
	for _, k := range known {
		bound := most
		if len(k) <= 4 || most == 1 {
			bound = 1
			if key == "" || key[0]|0x20 != k[0] {
				continue
			}
		}
		if len(key) > len(k)+bound || len(k) > len(key)+bound {
			continue
		}
		if d := editdist.Slips(strings.ToLower(key), k); d <= bound && d < bestD {
			best, bestD = k, d
		}
	}
	return best, best != ""
}

// keys reports misspelt frontmatter keys, directive keys and kind values.
func (v *validation) keys() {
	c := v.c
	fm := make([]string, 0, len(c.Metadata))
	for k := range c.Metadata {
		fm = append(fm, k)
	}
	sort.Strings(fm) // one order for the report
	for _, k := range fm {
		if want, ok := nearFrontKey(k); ok {
			v.r.Warnings = append(v.r.Warnings, Finding{Rule: RuleMisspeltKey, Line: c.MetadataLines[k],
				Message: fmt.Sprintf("frontmatter key %s is not one agent3md reads, so it is ignored; did you mean '%s:'?", quoted(k), want)})
		}
	}
	for i := range c.Planes {
		pl := &c.Planes[i]
		for _, at := range pl.Attributes {
			if want, ok := nearKey(at.Key, planeKeys); ok {
				v.warnf(RuleMisspeltKey, pl, "plane z=%s has the attribute %s=, which agent3md does not read, so it is ignored; did you mean %s=?", bare(pl.ZText), at.Key, want)
			}
		}
		if kind := pl.Attributes.Value("kind"); kind != "" && kind != "identity" && kind != "skill" &&
			editdist.Slips(strings.ToLower(kind), "identity") <= 2 {
			v.warnf(RuleMisspeltKey, pl, "plane z=%s has kind=%s, which agent3md does not read as kind=identity; did you mean kind=identity?", bare(pl.ZText), kind)
		}
	}
}
