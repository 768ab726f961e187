package agentfile

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/textclip"
	"golang.org/x/text/unicode/norm"
)

// NameKey is the form skill names are compared in: Unicode NFC. Two
// names with the same key are one name to a person and a model ("café"
// written with the one character é or as e and a combining accent), so
// a served agent never has two skills of one key (docs/format.md §8),
// and a lookup by name falls back to the key. ASCII names, and names
// already in NFC, are their own key (no allocation). A name that is not
// valid UTF-8 keeps its invalid bytes as they are.
func NameKey(name string) string {
	ascii := true
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || norm.NFC.IsNormalString(name) {
		return name
	}
	return norm.NFC.String(name)
}

// sameNameNote explains a clash between two names that differ in bytes
// but not in NFC form, showing both encodings, which look alike printed.
func sameNameNote(a, b string) string {
	if a == b {
		return ""
	}
	return fmt.Sprintf(" (written %s and %s: the same text with its accents encoded differently, and names are compared in Unicode NFC form)",
		strconv.QuoteToASCII(textclip.Bytes(a, quoteMax)), strconv.QuoteToASCII(textclip.Bytes(b, quoteMax)))
}

// FindNameClash returns the first two skills, in source order, that answer
// to one name (a label, or the skill-<z> name of a skill without one),
// names compared by NameKey: the indexes in Skills of the earlier and the
// later. found is false when every name is unique.
func (a *AgentInfo) FindNameClash() (first, second int, found bool) {
	seen := make(map[string]int, len(a.Skills))
	for i := range a.Skills {
		k := NameKey(a.Skills[i].Name)
		if j, dup := seen[k]; dup {
			return j, i, true
		}
		seen[k] = i
	}
	return -1, -1, false
}

// NameClash is the error that refuses to open c as an agent because skills
// first and second (indexes in a.Skills, first earlier) share a name, or
// names that NameKey makes one (the message then shows both encodings). A
// served agent never has two skills answering to one name: a route would
// pick one and a fetch by name the other. The error is a *ParseError named
// DuplicateSkill, on the later skill's line, naming both lines; file names
// the input, as Options.File does. Its Offset is 0: a catalog keeps no
// directive offsets.
func (a *AgentInfo) NameClash(c *Catalog, file string, first, second int) error {
	s1, s2 := &a.Skills[first], &a.Skills[second]
	p1, p2 := &c.Planes[s1.Plane], &c.Planes[s2.Plane]
	return &ParseError{
		File: file, Line: p2.Line, Name: DuplicateSkill, Err: ErrDuplicateSkill,
		Msg: fmt.Sprintf("the skills on lines %d and %d are both named %s%s%s; skill names must be unique: give one of them another label (agent3md validate lists every clash)",
			p1.Line, p2.Line, quoted(s2.Name), sameNameNote(s1.Name, s2.Name), fallbackNote(p1, p2)),
	}
}

// BadName is the error that refuses to open c as an agent because skill i
// (an index in a.Skills) has a name that is not valid UTF-8: it would be
// listed with replacement characters and could then never be fetched by
// the name a client sees. The validator reports the same label as
// name-utf8; this is the refusal every command shares.
func (a *AgentInfo) BadName(c *Catalog, file string, i int) error {
	s := &a.Skills[i]
	return &ParseError{
		File: file, Line: c.Planes[s.Plane].Line, Name: InvalidSkillName, Err: ErrInvalidSkillName,
		Msg: fmt.Sprintf("the skill's name %s is not valid UTF-8, so no client could ask for it by name: write the label in UTF-8 (agent3md validate reports it as name-utf8)", quoted(s.Name)),
	}
}

// fallbackNote explains a clash that involves a skill without a label,
// which the user may not know is named skill-<z>.
func fallbackNote(planes ...*Plane) string {
	var lines []string
	for _, pl := range planes {
		if !pl.HasLabel || pl.Label == "" {
			lines = append(lines, fmt.Sprint(pl.Line))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf(" (the plane on line %s has no label, so it is named skill-<z>)", strings.Join(lines, " and "))
}
