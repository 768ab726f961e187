package wordlist

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"sync"
)

//go:embed words.txt.gz
var packedWords []byte

//go:embed common.txt.gz
var packedCommon []byte

// MinLen is the length of the shortest word the list holds: Known says
// nothing about shorter words (it answers false).
const MinLen = 4

// list is one embedded, sorted word list, unpacked on first use.
type list struct {
	packed []byte
	once   sync.Once
	blob   []byte   // the words, sorted, each followed by '\n'
	ends   []uint32 // word i is blob[start(i):ends[i]]
	// set, when asked for (a short list read on every route), holds the
	// words for a hash lookup instead of a binary search.
	set    map[string]struct{}
	hashed bool
}

var (
	words  = &list{packed: packedWords}
	common = &list{packed: packedCommon, hashed: true}
)

func (l *list) load() {
	zr, err := gzip.NewReader(bytes.NewReader(l.packed))
	if err != nil {
		panic("wordlist: an embedded list is corrupt: " + err.Error())
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		panic("wordlist: an embedded list is corrupt: " + err.Error())
	}
	n := bytes.Count(b, []byte{'\n'})
	e := make([]uint32, 0, n)
	for i, c := range b {
		if c == '\n' {
			e = append(e, uint32(i))
		}
	}
	l.blob, l.ends = b, e
	if l.hashed {
		l.set = make(map[string]struct{}, n)
		for i := range e {
			l.set[string(l.word(i))] = struct{}{}
		}
	}
}

func (l *list) word(i int) []byte {
	start := 0
	if i > 0 {
		start = int(l.ends[i-1]) + 1
	}
	return l.blob[start:l.ends[i]]
}

func (l *list) has(w string) bool {
	l.once.Do(l.load)
	if l.set != nil {
		_, ok := l.set[w]
		return ok
	}
	lo, hi := 0, len(l.ends)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); string(l.word(m)) < w {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(l.ends) && string(l.word(lo)) == w
}

// Known reports whether w, in lower case, is a word of the list. It is
// safe for concurrent use.
func Known(w string) bool {
	if len(w) < MinLen {
		return false
	}
	return words.has(w)
}

// Common reports whether w, in lower case, is one of the about 3,900
// commonest English words (SCOWL's size 10: "can", "look", "check",
// "test", "order"), whatever its length. A request word that common says
// little about what is asked on its own. It is safe for concurrent use.
func Common(w string) bool {
	return w != "" && common.has(w)
}

// Len is how many words the list Known reads holds.
func Len() int {
	words.once.Do(words.load)
	return len(words.ends)
}
