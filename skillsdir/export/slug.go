package export

import (
	"math"
	"strconv"
	"strings"

	"github.com/agent3md/agent3md/agentfile"
)

// maxSlug is the Agent Skills bound on a skill name (docs/format.md §15).
const maxSlug = 64

// Slugify turns a name into an Agent Skills name: ASCII letters
// lowercased and digits kept, every other run of characters (spaces,
// punctuation, non-ASCII letters) becomes one "-", no leading or trailing
// "-", at most 64 characters. It returns "" when nothing is left. Servers
// use it for URL path segments too.
func Slugify(name string) string {
	b := make([]byte, 0, min(len(name), maxSlug))
	dash := false
	for i := 0; i < len(name) && len(b) < maxSlug; i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		default:
			dash = len(b) > 0
			continue
		}
		if dash {
			if len(b)+2 > maxSlug {
				break
			}
			b = append(b, '-')
			dash = false
		}
		b = append(b, c)
	}
	return string(b)
}

// zSlug spells z with slug characters: "3", "1-5" for 1.5, "m2" for -2,
// "1e21" / "1em7" for exponents.
func zSlug(z float64) string {
	r := strings.NewReplacer(".", "-", "-", "m", "+", "")
	return r.Replace(FormatZ(z))
}

// FormatZ spells a plane position the way JSON would, as a SKILL.md's
// metadata z carries it: integers without a fraction, exponents only for
// very large or very small magnitudes.
func FormatZ(z float64) string {
	if a := math.Abs(z); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(z, 'g', -1, 64)
	}
	return strconv.FormatFloat(z, 'f', -1, 64)
}

// AssignSlugs gives every skill a valid Agent Skills name, unique within
// the agent and deterministic for the file: each skill's natural slug
// (slugify of its name, "skill-<z>" when that is empty) goes to the first
// skill in source order that wants it; every later skill wanting a taken
// slug gets "<slug>-z<z>" (z is unique per plane), and in the unlikely case
// that is taken too, "<slug>-z<z>-2", "-3", and so on.
//
// It returns the slugs, parallel to skills, and the index of each.
func AssignSlugs(skills []agentfile.Skill) ([]string, map[string]int) {
	base := make([]string, len(skills))
	slugs := make([]string, len(skills))
	taken := make(map[string]int, len(skills))
	for i := range skills {
		base[i] = Slugify(skills[i].Name)
		if base[i] == "" {
			base[i] = withSuffix("skill", zSlug(skills[i].Z))
		}
		if _, ok := taken[base[i]]; !ok {
			taken[base[i]] = i
			slugs[i] = base[i]
		}
	}
	for i := range skills {
		if slugs[i] != "" {
			continue
		}
		suf := "z" + zSlug(skills[i].Z)
		s := withSuffix(base[i], suf)
		for k := 2; ; k++ {
			if _, ok := taken[s]; !ok {
				break
			}
			s = withSuffix(base[i], suf+"-"+strconv.Itoa(k))
		}
		taken[s] = i
		slugs[i] = s
	}
	return slugs, taken
}

// withSuffix joins base and suffix with "-", shortening base so the result
// stays within maxSlug.
func withSuffix(base, suffix string) string {
	if keep := maxSlug - 1 - len(suffix); len(base) > keep {
		base = strings.TrimRight(base[:max(keep, 0)], "-")
	}
	if base == "" {
		return strings.Trim(suffix[:min(len(suffix), maxSlug)], "-")
	}
	return base + "-" + suffix
}
