package skillmd

import "strings"

// SplitTriggers splits a comma- or newline-separated list (metadata
// triggers), trimmed, with empty items dropped.
func SplitTriggers(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' }) {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}
