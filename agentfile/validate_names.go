package agentfile

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// RuleConfusableName (warning): a skill name that a person or a client
// can take for another: it has spaces at either end or a control
// character, or it equals another skill's name once case and those
// spaces are ignored. unique-skill compares names by NameKey (NFC), so
// label=" run-tests " beside label="run-tests" passed it, and a listing
// showed the same name twice, one of them answering only to the spaces.
const RuleConfusableName = "confusable-name"

// foldName is the form two names are compared in for confusion: case,
// spaces at the ends and how accents are composed ("é" as one character
// or as "e" and a combining accent) are not seen by a person.
func foldName(name string) string { return norm.NFC.String(strings.ToLower(strings.TrimSpace(name))) }

// confusable reports the names above. Most agents have none, and then no
// map is built: a name equal to its folded form that holds no control
// character can only be confused with one that is not, and names equal
// in NFC form (exact duplicates included) are unique-skill's errors.
func (v *validation) confusable() {
	skills := v.a.Skills
	odd := false
	for i := range skills {
		n := skills[i].Name
		if foldName(n) != n || strings.IndexFunc(n, unicode.IsControl) >= 0 {
			odd = true
			break
		}
	}
	if !odd {
		return
	}
	first := make(map[string]int, len(skills)) // folded name -> index of the first skill
	for i := range skills {
		s := &skills[i]
		pl := &v.c.Planes[s.Plane]
		if pl.Attributes.Value("kind") == "identity" || strings.TrimSpace(s.Name) == "" {
			continue // a second identity is reported as such, a blank label by missing-label
		}
		n := s.Name
		switch {
		case strings.TrimSpace(n) != n:
			v.warnf(RuleConfusableName, pl, "skill name %s has spaces at its start or end, which a person cannot see and a client may trim; remove them from its label", quoted(n))
		case strings.IndexFunc(n, unicode.IsControl) >= 0:
			v.warnf(RuleConfusableName, pl, "skill name %s holds a control character (a tab, say), which a person cannot see; remove it from its label", quoted(n))
		}
		f := foldName(n)
		j, seen := first[f]
		if !seen {
			first[f] = i
			continue
		}
		if other := skills[j].Name; NameKey(other) != NameKey(n) {
			v.warnf(RuleConfusableName, pl, "skill name %s differs from %s (line %d) only in case, spaces at its ends or how its accents are encoded (é as one character or as e and a combining accent), so the two read as one name; give one of them another label",
				quoted(n), quoted(other), v.c.Planes[skills[j].Plane].Line)
		}
	}
}
