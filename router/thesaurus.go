package router

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/agent3md/agent3md/internal/segment"
)

// The domain thesaurus (thesaurus.txt, docs/architecture.md §5): groups of
// words users say interchangeably for one intent. Ranked routing reads it
// to widen a request that hit no trigger phrase (synonyms.go); spec
// routing never does.

//go:embed thesaurus.txt
var thesaurusText string

// thesaurus is the parsed thesaurus: its groups, and to find members in
// a request, one-word members' groups by stem and longer members by
// their first stem.
type thesaurus struct {
	groups [][]synMember
	single map[string][]uint32
	multi  map[string][]synRef
	// unspaced holds the members written in an unspaced script (Chinese),
	// by first rune, longest first: a request's run holds them unspaced.
	unspaced segment.Segmenter
}

// synMember is one member of a group: its words and their Porter stems.
type synMember struct {
	words []string
	stems []string
	// content is, for a member of several words, the stems of those that
	// are not stop words (what the index keeps of it).
	content []string
	// target marks a member after the colon of a one-way group ("pytest,
	// jest: test, unit test"): it is brought by the group's other
	// members but brings nothing itself, so the generic words a tool
	// name stands for are not made synonyms of each other by it.
	target bool
}

// synRef is member m of group g.
type synRef struct{ g, m uint32 }

// Limits on the embedded thesaurus: an edit gone wrong fails a test.
const (
	maxThesaurusLine   = 1024 // bytes per line
	maxGroupMembers    = 40   // members per group
	maxMemberWords     = 5    // words per member
	maxThesaurusGroups = 4096
)

// parseThesaurus reads text in the format thesaurus.txt's header
// describes. No two members of a group may have the same stems (a plural
// beside its singular says nothing the stemmer does not).
func parseThesaurus(text string) (*thesaurus, error) {
	th := &thesaurus{single: map[string][]uint32{}, multi: map[string][]synRef{}}
	for n, line := range strings.Split(text, "\n") {
		n++ // lines count from 1
		if len(line) > maxThesaurusLine {
			return nil, fmt.Errorf("router: thesaurus.txt line %d: %d bytes, over the limit of %d", n, len(line), maxThesaurusLine)
		}
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if len(th.groups) == maxThesaurusGroups {
			return nil, fmt.Errorf("router: thesaurus.txt line %d: more than %d groups", n, maxThesaurusGroups)
		}
		group, err := parseGroup(line)
		if err != nil {
			return nil, fmt.Errorf("router: thesaurus.txt line %d: %w", n, err)
		}
		g := uint32(len(th.groups))
		th.groups = append(th.groups, group)
		for m, mem := range group {
			if mem.target {
				continue // brought, never looked up
			}
			if len(mem.stems) == 1 {
				th.single[mem.stems[0]] = append(th.single[mem.stems[0]], g)
				if w := mem.stems[0]; segment.HasUnspaced(w) && len(th.single[w]) == 1 {
					th.unspaced.Add(w)
				}
			} else {
				th.multi[mem.stems[0]] = append(th.multi[mem.stems[0]], synRef{g, uint32(m)})
			}
		}
	}
	th.unspaced.Sort()
	return th, nil
}

// parseGroup reads one line's comma-separated members; in a one-way
// group, those after the colon are targets.
func parseGroup(line string) ([]synMember, error) {
	parts := strings.Split(line, ",")
	split := -1 // the index of the first target, in a one-way group
	if src, dst, ok := strings.Cut(line, ":"); ok {
		if strings.Contains(dst, ":") {
			return nil, fmt.Errorf("more than one colon: a one-way group is members, a colon, then the words they stand for")
		}
		parts = strings.Split(src, ",")
		split = len(parts)
		parts = append(parts, strings.Split(dst, ",")...)
		if strings.TrimSpace(src) == "" || strings.TrimSpace(dst) == "" {
			return nil, fmt.Errorf("a one-way group needs members before and after its colon")
		}
	}
	if len(parts) < 2 {
		return nil, fmt.Errorf("a group needs at least two members separated by commas")
	}
	if len(parts) > maxGroupMembers {
		return nil, fmt.Errorf("%d members, over the limit of %d", len(parts), maxGroupMembers)
	}
	group := make([]synMember, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("member %d is empty", i+1)
		}
		for _, r := range p {
			if r != ' ' && !isWordRune(r) || unicode.IsUpper(r) {
				return nil, fmt.Errorf("member %d %q: only lower-case letters, digits and spaces", i+1, p)
			}
		}
		words := strings.Fields(p)
		if strings.Join(words, " ") != p {
			return nil, fmt.Errorf("member %d %q: words are separated by one space", i+1, p)
		}
		if len(words) > maxMemberWords {
			return nil, fmt.Errorf("member %d %q: %d words, over the limit of %d", i+1, p, len(words), maxMemberWords)
		}
		mem := synMember{words: words, stems: make([]string, len(words)), target: split >= 0 && i >= split}
		if segment.HasUnspaced(p) && (!segment.AllUnspaced(p) || utf8.RuneCountInString(p) < 2) {
			return nil, fmt.Errorf("member %d %q: a member in an unspaced script (Chinese) is two or more of its characters, "+
				"with no space nor other letters (one character is part of too many words)", i+1, p)
		}
		for k, w := range words {
			mem.stems[k] = stem(w) // an unspaced word's is itself
			if len(words) > 1 && !stopWords[w] {
				mem.content = append(mem.content, mem.stems[k])
			}
		}
		for _, o := range group {
			if slices.Equal(o.stems, mem.stems) {
				return nil, fmt.Errorf("member %d %q has the stems of %q: keep one", i+1, p, strings.Join(o.words, " "))
			}
		}
		group = append(group, mem)
	}
	return group, nil
}

// thesaurusOnce parses the embedded thesaurus when first needed; should
// it not parse (TestThesaurusParses), routing goes on without synonyms.
var thesaurusOnce = sync.OnceValue(func() *thesaurus {
	if th, err := parseThesaurus(thesaurusText); err == nil {
		return th
	}
	return &thesaurus{}
})
