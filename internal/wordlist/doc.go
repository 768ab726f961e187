// Package wordlist answers whether a lowercase word is an English word,
// from an embedded list of 72,000 American English words of four or more
// letters (SCOWL by Kevin Atkinson, as Debian's wamerican ships it; the
// notice and how the list was derived are in SCOWL-LICENSE).
//
// The router asks it before it treats a word it does not know as a
// misspelling: "plants" is a word and stays "plants" even one letter away
// from an agent's "plans"; "atest" is not, and may be read as "attest"
// (docs/architecture.md §5). The list is unpacked on first use only
// (about 1 MB), so a server that never needs it never pays for it.
//
// Common answers from a second list, SCOWL's commonest 3,900 words: the
// router does not let a tool name make a relaxed match beside only such a
// word ("what does the Intercom logo look like").
//
// CommonHan answers the same for Chinese characters, from a list of the
// commonest 180 derived from jieba's dictionary (HAN-LICENSE): the router
// does not let a character that common carry a match on its own.
package wordlist
