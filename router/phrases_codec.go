package router

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
)

// The phrase index is saved beside a cached bleve index (phrases.bin, in
// codec.go's form) so a warm start reads it instead of tokenising and
// stemming every trigger again; check still bounds every index it holds,
// so even a file that slipped past the manifest's checksums cannot make
// routing index out of range.
const (
	phrasesName  = "phrases.bin"
	phrasesMagic = "A3PH"
)

var errBadPhrases = errors.New("phrase index file is damaged")

// writePhrases saves x to path.
func writePhrases(path string, x *phraseIndex) error {
	buf := append([]byte(phrasesMagic), 0)[:len(phrasesMagic)]
	for _, l := range [][]uint32{x.skillOf, x.ordOf, x.exactSet} {
		buf = appendInts(buf, l)
	}
	for _, v := range []*vocabLists{&x.exact, &x.stems} {
		buf = appendTerms(buf, v.ids)
		for _, l := range [][]uint32{v.start, v.toks, v.ownS, v.own, v.anchorS, v.anchor} {
			buf = appendInts(buf, l)
		}
	}
	return os.WriteFile(path, buf, 0o644)
}

// readPhrases loads the phrase index saved for skills; with skills nil
// it is not checked, and nothing may route with it before check.
func readPhrases(path string, skills Source) (*phraseIndex, error) {
	data, err := readListFile(path, errBadPhrases)
	if err != nil {
		return nil, err
	}
	d := newListReader(data, phrasesMagic, errBadPhrases)
	x := &phraseIndex{skillOf: d.ints("phrases"), ordOf: d.ints("phrases"), exactSet: d.ints("phrases")}
	for _, v := range []*vocabLists{&x.exact, &x.stems} {
		v.ids = d.terms()
		v.start, v.toks, v.ownS, v.own = d.ints("sets"), d.ints("tokens"), d.ints("sets"), d.ints("phrases")
		v.anchorS, v.anchor = d.ints("terms"), d.ints("anchors")
	}
	if err := d.end("lists"); err != nil {
		return nil, err
	}
	if skills != nil {
		if err := x.check(skills); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// check verifies every index the router will follow is in bounds.
func (x *phraseIndex) check(skills Source) error {
	n := len(x.skillOf)
	if len(x.ordOf) != n || len(x.exactSet) != n || uint64(n) > math.MaxUint32 {
		return fmt.Errorf("%w: phrase lists differ in length", errBadPhrases)
	}
	for p := range n {
		s := x.skillOf[p]
		if int(s) >= skills.Len() {
			return fmt.Errorf("%w: phrase %d points past the skills", errBadPhrases, p)
		}
		if _, _, t := skills.Phrases(int(s)); int(x.ordOf[p]) >= len(t) {
			return fmt.Errorf("%w: phrase %d points past the skills", errBadPhrases, p)
		}
	}
	if err := x.exact.check(n); err != nil {
		return err
	}
	if err := x.stems.check(n); err != nil {
		return err
	}
	for _, u := range x.exactSet {
		if int(u) >= x.exact.sets() {
			return fmt.Errorf("%w: phrase set out of range", errBadPhrases)
		}
	}
	return nil
}

func (v *vocabLists) check(phrases int) error {
	sets := len(v.start) - 1
	ok := sets >= 0 && csrOK(v.start, len(v.toks)) && csrOK(v.ownS, len(v.own)) &&
		len(v.ownS) == sets+1 && csrOK(v.anchorS, len(v.anchor)) && len(v.anchorS) == len(v.ids)+1 &&
		allBelow(v.toks, len(v.ids)) && allBelow(v.own, phrases) && allBelow(v.anchor, sets)
	if !ok {
		return fmt.Errorf("%w: inconsistent vocabulary lists", errBadPhrases)
	}
	return nil
}

// csrOK reports whether start is a valid CSR offset list over n items.
func csrOK(start []uint32, n int) bool {
	return len(start) > 0 && start[0] == 0 && int(start[len(start)-1]) == n && slices.IsSorted(start)
}

func allBelow(v []uint32, n int) bool {
	for _, x := range v {
		if int(x) >= n {
			return false
		}
	}
	return true
}
