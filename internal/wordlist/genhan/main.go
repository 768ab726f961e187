// Command genhan derives hancommon.txt, the commonest Chinese characters
// (wordlist.CommonHan), from jieba's dictionary as Debian's python3-jieba
// ships it. Run from internal/wordlist:
//
//	go run ./genhan /usr/lib/python3/dist-packages/jieba/dict.txt > hancommon.txt
//
// The dictionary lists words with their frequency in jieba's corpus and
// a part-of-speech tag. A character is common when
//
//   - words of a function class (pronoun r, modal particle y, auxiliary
//     u*, preposition p, conjunction c, adverb d, numeral m, measure
//     word q, interjection e, direction f, onomatopoeia o) hold it with
//     frequency at least minFunction in all, and that is at least half
//     of the frequency of all words that hold it: 的, 了, 么, 怎, 吗, 什;
//   - or it is among the topSingle most frequent one-character words,
//     whatever its class: 是, 有, 人, 说.
//
// Each is printed once, most frequent first, one line.
package main

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	minFunction = 20000
	topSingle   = 100
)

var functionTags = map[string]bool{"r": true, "y": true, "u": true, "uj": true, "ul": true, "uz": true, "ug": true,
	"uv": true, "ud": true, "p": true, "c": true, "d": true, "m": true, "q": true, "e": true, "f": true, "o": true}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genhan path/to/jieba/dict.txt")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "genhan:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fn, all, single := map[rune]int{}, map[rune]int{}, map[rune]int{}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		p := strings.Fields(sc.Text())
		if len(p) != 3 {
			return fmt.Errorf("%s:%d: want word, frequency and tag, got %q", path, line, sc.Text())
		}
		n, err := strconv.Atoi(p[1])
		if err != nil {
			return fmt.Errorf("%s:%d: frequency: %w", path, line, err)
		}
		if strings.IndexFunc(p[0], func(r rune) bool { return !unicode.Is(unicode.Han, r) }) >= 0 {
			continue
		}
		seen := map[rune]bool{}
		for _, r := range p[0] {
			if seen[r] {
				continue
			}
			seen[r] = true
			all[r] += n
			if functionTags[p[2]] {
				fn[r] += n
			}
		}
		if utf8.RuneCountInString(p[0]) == 1 {
			r, _ := utf8.DecodeRuneInString(p[0])
			single[r] = n
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	pick := map[rune]bool{}
	for r, n := range fn {
		if n >= minFunction && 2*n >= all[r] {
			pick[r] = true
		}
	}
	ones := make([]rune, 0, len(single))
	for r := range single {
		ones = append(ones, r)
	}
	slices.SortFunc(ones, func(a, b rune) int { return cmp.Or(cmp.Compare(single[b], single[a]), cmp.Compare(a, b)) })
	for _, r := range ones[:min(topSingle, len(ones))] {
		pick[r] = true
	}
	out := make([]rune, 0, len(pick))
	for r := range pick {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b rune) int {
		return cmp.Or(cmp.Compare(fn[b]+single[b], fn[a]+single[a]), cmp.Compare(a, b))
	})
	fmt.Println(string(out))
	return nil
}
