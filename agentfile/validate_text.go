package agentfile

import (
	"fmt"
	"unicode/utf8"
)

// Validator rules about the file's text rather than its agent: names that
// are not UTF-8, bytes and line ends the format accepts but a person did
// not mean, and frontmatter written as YAML.
const (
	// RuleNameUTF8 (error): a skill label or the agent's name is not valid
	// UTF-8, so clients would show and send back a different name.
	RuleNameUTF8 = "name-utf8"
	// RuleNUL (warning): a NUL byte in a line.
	RuleNUL = "nul-byte"
	// RuleUTF8 (warning): a line that is not valid UTF-8.
	RuleUTF8 = "utf8"
	// RuleStrayCR (warning): a carriage return without a line feed.
	RuleStrayCR = "stray-cr"
	// RuleHiddenDirective (error): a stray carriage return followed by an
	// @plane directive, which is then read as body text.
	RuleHiddenDirective = "hidden-directive"
	// RuleYAML (warning): a frontmatter line written as YAML.
	RuleYAML = "yaml-frontmatter"
	// RuleDirectiveTypo (warning): a body line that was almost an @plane
	// directive, so the plane it meant to open does not exist.
	RuleDirectiveTypo = "directive-typo"
	// RuleWrappedDirective (error): an @plane directive wrapped onto the
	// next line, whose attributes are then read as body text.
	RuleWrappedDirective = "wrapped-directive"
)

// text reports the names that are not UTF-8 and turns the scanner's
// notices into findings.
func (v *validation) text() {
	bad := v.names()
	for _, n := range v.c.Notices {
		if n.Kind == NoticeUTF8 && bad[n.Line] {
			continue // the name-utf8 error on this line says it already
		}
		rule, msg, isErr := noticeFinding(n)
		f := Finding{Rule: rule, Message: msg, Line: n.Line}
		if isErr {
			v.r.Errors = append(v.r.Errors, f)
		} else {
			v.r.Warnings = append(v.r.Warnings, f)
		}
	}
	if d := v.c.NoticesDropped; d > 0 {
		last := v.c.Notices[len(v.c.Notices)-1]
		rule, _, _ := noticeFinding(last)
		v.r.Warnings = append(v.r.Warnings, Finding{Rule: rule, Line: last.Line,
			Message: fmt.Sprintf("%d more lines after line %d hold NUL bytes, invalid UTF-8, stray carriage returns or YAML; fix the ones above and validate again", d, last.Line)})
	}
}

// names reports every skill label and the agent name that is not valid
// UTF-8, and returns the lines it reported.
func (v *validation) names() map[int]bool {
	bad := map[int]bool{}
	c, a := v.c, v.a
	if a.Named && !utf8.ValidString(a.Name) {
		line := c.MetadataLines["agent"]
		if c.HasTitle && c.Title != "" {
			line = c.TitleLine
		}
		bad[line] = true
		v.r.Errors = append(v.r.Errors, Finding{Rule: RuleNameUTF8, Line: line,
			Message: fmt.Sprintf("the agent's name %s is not valid UTF-8; clients would show it garbled: re-save the file as UTF-8 or rename the agent", quoted(a.Name))})
	}
	for i := range c.Planes {
		pl := &c.Planes[i]
		if pl.HasLabel && !utf8.ValidString(pl.Label) {
			bad[pl.Line] = true
			v.errorf(RuleNameUTF8, pl, "the label %s of plane z=%s is not valid UTF-8, so a client could not ask for it by name; re-save the file as UTF-8 or rename the skill",
				quoted(pl.Label), bare(pl.ZText))
		}
	}
	return bad
}

// noticeFinding words a notice as a finding: its rule, message and whether
// it is an error.
func noticeFinding(n Notice) (rule, msg string, isErr bool) {
	switch n.Kind {
	case NoticeNUL:
		return RuleNUL, fmt.Sprintf("line %d holds a NUL byte; it is kept as written, but most tools stop reading at it: remove it", n.Line), false
	case NoticeUTF8:
		return RuleUTF8, fmt.Sprintf("line %d is not valid UTF-8; clients receive U+FFFD in place of its bad bytes: re-save the file as UTF-8", n.Line), false
	case NoticeCR:
		return RuleStrayCR, fmt.Sprintf("stray carriage return at line %d: a CR without a line feed does not end a line in 3md and stays in the text; convert the file's line endings to LF", n.Line), false
	case NoticeCRDirective:
		return RuleHiddenDirective, fmt.Sprintf("stray carriage return at line %d hides an @plane directive: 3md ends lines only at LF or CRLF, so the plane after the CR is read as body text of the one before it; convert the file's line endings to LF", n.Line), true
	case NoticeDirectiveTypo:
		return RuleDirectiveTypo, fmt.Sprintf("line %d starts with %s and a z= token, so it looks like a plane directive, but only '@plane' at column 0 opens a plane: "+
			"it is read as body text of the plane before it and the plane it meant does not exist; write '@plane' at the start of the line", n.Line, quoted(n.Form)), false
	case NoticeWrappedDirective:
		return RuleWrappedDirective, fmt.Sprintf("line %d continues the @plane directive above it (%s), but a directive is one line: these attributes are read as body text and the plane does not have them "+
			"(a skill without its tool= has no command to run); join line %d onto the end of line %d", n.Line, n.Key, n.Line, n.Line-1), true
	default: // NoticeYAML
		fix := "one 'key: value' per line, lists as comma lists ('tools: rg, go')"
		if n.Fix != "" {
			fix = "'" + n.Fix + "'"
		}
		return RuleYAML, fmt.Sprintf("frontmatter line %d (key %s) looks like %s, but 3md frontmatter values are single-line 'key: value' and this is read as plain text; write %s",
			n.Line, quoted(n.Key), n.Form, fix), false
	}
}
