package router

import (
	"path"
	"slices"
	"strings"
	"unicode"
)

// A request that says a skill's command ("stripe customers list for
// ana@…", "kubectl rollout history for cart", "csvlook events.csv") asks
// for that skill as plainly as one that says its name. What a command
// says is its binary and subcommands (toolCommand); the request must hold
// the shortest run of those words, from the binary on, that no other
// skill's command starts with ("kubectl rollout history", where "kubectl"
// and "kubectl rollout" are shared; "csvlook" alone), as adjacent words.
// A command of one word must also be no other skill's trigger or name
// word and not a stop word, so that a binary that is an everyday word
// ("make", "find") in an agent that uses it so does not turn every
// request with that word into a command.

// maxCommandWords bounds the words of a command that are read: a binary
// of a word or two and its subcommands (toolCommand keeps three).
const maxCommandWords = 4

// commandKey is up to maxCommandWords stem ids of a command, zero-padded
// after the first n (ids are offset by one so that 0 means none).
type commandKey [maxCommandWords]uint32

// readCommands reads every skill's command (toolCommand's words, as
// tokens, at most maxCommandWords) as stems, extending the vocabulary
// like readNames; skills without a command get an empty list. stop[i]
// says whether skill i's command starts with a stop word.
func (sp *specifics) readCommands(src Source) (cmds csrLists, stop []bool) {
	n := src.Len()
	cmds.start = make([]uint32, 1, n+1)
	stop = make([]bool, n)
	var toks []string
	tokID := map[string]uint32{}
	for i := 0; i < n; i++ {
		if tool := src.Skill(i).Tool; tool != "" {
			toks = appendCommandTokens(toks[:0], tool)
			for k, tok := range toks {
				if k == 0 {
					stop[i] = stopWords[tok]
				}
				cmds.items = append(cmds.items, sp.wordID(tokID, tok))
			}
		}
		cmds.start = append(cmds.start, uint32(len(cmds.items)))
	}
	return cmds, stop
}

// appendCommandTokens appends the tokens of toolCommand(tool), at most
// maxCommandWords, without building the command's string: it reads every
// skill's tool when a router first routes in Ranked mode.
func appendCommandTokens(dst []string, tool string) []string {
	start := len(dst)
	words := 0
	for rest := tool; rest != "" && len(dst)-start < maxCommandWords; words++ {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		w := rest[:end]
		rest = rest[end:]
		if w == "" {
			break
		}
		if words == 0 {
			w = path.Base(w) // the binary's base name
		} else if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "{}=/$'\"") || words > maxSubcommands {
			break
		}
		dst = appendTokens(dst, w)
	}
	if len(dst)-start > maxCommandWords {
		dst = dst[:start+maxCommandWords]
	}
	return dst
}

// pickCommands keeps, of each skill's command (cmds), the shortest prefix
// no other skill's command shares, subject to the one-word rule above
// (df: skills using each stem in triggers or name; uses reports whether
// skill s itself does), and files the prefixes under their first word.
func (sp *specifics) pickCommands(cmds csrLists, stop []bool, df []uint32, uses func(s int, id uint32) bool) {
	n := len(cmds.start) - 1
	prefixes := func(i int, fn func(k int, key commandKey) bool) {
		var key commandKey
		for k, id := range cmds.list(i) {
			key[k] = id + 1
			if !fn(k, key) {
				return
			}
		}
	}
	shared := map[commandKey]int32{}
	for i := 0; i < n; i++ {
		prefixes(i, func(_ int, key commandKey) bool { shared[key]++; return true })
	}
	sp.cmdPrefix.start = make([]uint32, 1, n+1)
	var firstOf, owner []uint32
	for i := 0; i < n; i++ {
		cmd := cmds.list(i)
		prefixes(i, func(k int, key commandKey) bool {
			if shared[key] > 1 {
				return true
			}
			if k == 0 && (stop[i] || df[cmd[0]] > 1 || df[cmd[0]] == 1 && !uses(i, cmd[0])) {
				return false
			}
			sp.cmdPrefix.items = append(sp.cmdPrefix.items, cmd[:k+1]...)
			firstOf = append(firstOf, cmd[0])
			owner = append(owner, uint32(i))
			sp.cmdSig |= 1 << (cmd[0] % 64)
			return false
		})
		sp.cmdPrefix.start = append(sp.cmdPrefix.start, uint32(len(sp.cmdPrefix.items)))
	}
	start, order := csr(len(sp.idf), firstOf)
	sp.cmdFirst.start = start
	sp.cmdFirst.items = make([]uint32, len(order))
	for k, at := range order {
		sp.cmdFirst.items[k] = owner[at]
	}
}

// commandedBy calls fn for every skill whose command the request says,
// with the position and length of the words that say it.
func (sp *specifics) commandedBy(rq request, fn func(skill, at, n int)) {
	if sp.cmdSig&rq.sig == 0 {
		return
	}
	for i, id := range rq.seq {
		if id == noID || sp.cmdSig&(1<<(id%64)) == 0 {
			continue
		}
		for _, s := range sp.cmdFirst.list(int(id)) {
			p := sp.cmdPrefix.list(int(s))
			if i+len(p) <= len(rq.seq) && slices.Equal(rq.seq[i:i+len(p)], p) {
				fn(int(s), i, len(p))
			}
		}
	}
}
