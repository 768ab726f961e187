package hanzi

import (
	_ "embed"
	"strings"
	"sync"
	"unicode/utf8"
)

var (
	//go:embed ts.txt
	tsText string
	//go:embed st.txt
	stText string

	once     sync.Once
	toSimp   map[rune]rune
	toTrad   map[rune]rune
	tableMin rune // the smallest character either table maps
)

func load() {
	once.Do(func() {
		toSimp, toTrad = parse(tsText), parse(stText)
		tableMin = utf8.MaxRune
		for _, m := range []map[rune]rune{toSimp, toTrad} {
			for r := range m {
				tableMin = min(tableMin, r)
			}
		}
	})
}

// parse reads lines of two characters: a character and its conversion.
func parse(text string) map[rune]rune {
	m := make(map[rune]rune, strings.Count(text, "\n"))
	for line := range strings.Lines(text) {
		from, n := utf8.DecodeRuneInString(line)
		to, _ := utf8.DecodeRuneInString(line[n:])
		if from != utf8.RuneError && to != utf8.RuneError {
			m[from] = to
		}
	}
	return m
}

// Simplified returns the simplified form of a traditional character, and
// whether r is one (a character both scripts write alike is not).
func Simplified(r rune) (rune, bool) {
	load()
	s, ok := toSimp[r]
	return s, ok
}

// Traditional returns the traditional form of a simplified character, and
// whether r is one.
func Traditional(r rune) (rune, bool) {
	load()
	t, ok := toTrad[r]
	return t, ok
}

// Script counts the characters of s that only the traditional script
// writes so and those that only the simplified script does.
func Script(s string) (traditional, simplified int) {
	load()
	for _, r := range s {
		if r < tableMin {
			continue
		}
		if _, ok := toSimp[r]; ok {
			traditional++
		}
		if _, ok := toTrad[r]; ok {
			simplified++
		}
	}
	return traditional, simplified
}

// ToSimplified returns s with each traditional character in its
// simplified form; s itself when it has none.
func ToSimplified(s string) string { return convert(s, Simplified) }

// ToTraditional returns s with each simplified character in its
// traditional form; s itself when it has none.
func ToTraditional(s string) string { return convert(s, Traditional) }

// convert maps each character of s through conv, copying s only from
// the first character conv changes.
func convert(s string, conv func(rune) (rune, bool)) string {
	load()
	var b strings.Builder
	started := false
	for i, r := range s {
		c, ok := rune(0), false
		if r >= tableMin {
			c, ok = conv(r)
		}
		switch {
		case ok && !started:
			b.Grow(len(s) + 8)
			b.WriteString(s[:i])
			started = true
			b.WriteRune(c)
		case ok:
			b.WriteRune(c)
		case started:
			b.WriteRune(r)
		}
	}
	if !started {
		return s
	}
	return b.String()
}
