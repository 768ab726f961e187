package wordlist

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"sort"
	"sync"
)

//go:embed words.txt.gz
var packed []byte

// MinLen is the length of the shortest word the list holds: Known says
// nothing about shorter words (it answers false).
const MinLen = 4

var (
	once sync.Once
	blob []byte   // the words, sorted, each followed by '\n'
	ends []uint32 // word i is blob[start(i):ends[i]]
)

func load() {
	zr, err := gzip.NewReader(bytes.NewReader(packed))
	if err != nil {
		panic("wordlist: the embedded list is corrupt: " + err.Error())
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		panic("wordlist: the embedded list is corrupt: " + err.Error())
	}
	n := bytes.Count(b, []byte{'\n'})
	e := make([]uint32, 0, n)
	for i, c := range b {
		if c == '\n' {
			e = append(e, uint32(i))
		}
	}
	blob, ends = b, e
}

func word(i int) []byte {
	start := 0
	if i > 0 {
		start = int(ends[i-1]) + 1
	}
	return blob[start:ends[i]]
}

// Known reports whether w, in lower case, is a word of the list. It is
// safe for concurrent use.
func Known(w string) bool {
	if len(w) < MinLen {
		return false
	}
	once.Do(load)
	i := sort.Search(len(ends), func(i int) bool { return string(word(i)) >= w })
	return i < len(ends) && string(word(i)) == w
}

// Len is how many words the list holds.
func Len() int {
	once.Do(load)
	return len(ends)
}
