package loader

import (
	"fmt"
	"strings"
)

// IsValueArg reports an argument of the form NAME=VALUE whose NAME is
// spelled as an input name: ASCII letters, digits and _, not starting with
// a digit. `agent3md run` tells its request text from values with it.
func IsValueArg(s string) bool {
	k, _, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		letter := c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ParseValues reads NAME=VALUE arguments into the values Command fills a
// template with; the value is everything after the first "=". A name
// given twice is an error, not a silent last-one-wins: "path=a path=b"
// may have meant both.
func ParseValues(args []string) (map[string]string, error) {
	values := map[string]string{}
	for _, p := range args {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("argument %q is not NAME=VALUE; values come after the request text as NAME=VALUE, each in its own argument", p)
		}
		if prev, dup := values[k]; dup {
			return nil, fmt.Errorf("input %s is given twice (%s=%s and %s); give each input once", k, k, prev, p)
		}
		values[k] = v
	}
	return values, nil
}
