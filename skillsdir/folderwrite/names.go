package folderwrite

import "strings"

// MaxNameLen is the longest Agent Skills name (docs/skill-folders.md §3).
const MaxNameLen = 64

// ValidName reports whether s is a valid Agent Skills name
// (docs/skill-folders.md §3): what a skill folder may be called.
func ValidName(s string) bool { return validName(s) }

// validName reports whether s matches the Agent Skills name rule:
// ^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$ (Go's regexp has no
// lookahead, so it is checked by hand).
func validName(s string) bool {
	if len(s) == 0 || len(s) > MaxNameLen || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
