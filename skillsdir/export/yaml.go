package export

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/agent3md/agent3md/skillsdir/skillmd"
)

// writeFrontmatter writes the SKILL.md frontmatter block. Every string is
// double-quoted (see yamlQuote), so a YAML parser yields exactly the
// strings, never a number, boolean, null or date; agent3md's keys are
// fixed ASCII words, and any other key is quoted unless it is a plain word.
func writeFrontmatter(b *bytes.Buffer, f renderedFM) {
	b.WriteString("---\nname: ")
	b.WriteString(yamlQuote(f.name))
	b.WriteString("\ndescription: ")
	b.WriteString(yamlQuote(f.description))
	b.WriteString("\n")
	for _, e := range f.top {
		b.WriteString(yamlKey(e.key))
		b.WriteString(": ")
		writeYAMLValue(b, e.value) // a bool unquoted: a boolean
		b.WriteString("\n")
	}
	if len(f.metadata) > 0 {
		b.WriteString("metadata:\n")
		for _, e := range f.metadata {
			b.WriteString("  ")
			b.WriteString(yamlKey(e.key))
			b.WriteString(": ")
			writeYAMLValue(b, e.value)
			b.WriteString("\n")
		}
	}
	b.WriteString("---\n")
}

// yamlQuote returns s as a YAML double-quoted scalar on one line. Printable
// characters (YAML 1.2 §5.1) are written as they are; quotes, backslashes,
// control characters, the Unicode line and paragraph separators, NEL and
// the byte order mark are escaped, so no YAML parser folds or drops any of
// them. s must be valid UTF-8 (see clean).
func yamlQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case yamlPrintable(r):
			b.WriteRune(r)
		case r <= 0xFF:
			fmt.Fprintf(&b, `\x%02X`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// yamlPrintable reports a character YAML may carry as it is inside a
// double-quoted scalar without any parser treating it specially.
func yamlPrintable(r rune) bool {
	switch {
	case r >= 0x20 && r <= 0x7E:
		return true
	case r == 0x2028, r == 0x2029, r == 0xFEFF:
		return false
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// plainKey is a key YAML reads as the string it is without quotes.
var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// yamlKey writes a mapping key: as it is when plain, else quoted.
func yamlKey(k string) string {
	if plainKey.MatchString(k) && !skillmd.YAML11Bool[strings.ToLower(k)] && k != "true" && k != "false" && k != "null" {
		return k
	}
	return yamlQuote(clean(k))
}
