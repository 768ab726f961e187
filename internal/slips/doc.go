// Package slips reads typing slips ("atest the release binary") as the
// words they stand for, among a vocabulary the caller gives (the router's
// trigger and name words; docs/architecture.md §5).
//
// Each word of a request that is neither in the vocabulary nor English
// (internal/wordlist) is read as the one vocabulary word a single slip
// away (Speller.Correct): a letter missing, two neighbours swapped, a
// letter doubled, or, in a word of five letters or more, one wrong letter
// inside it. The English test keeps "plants" from "plans"; a word with
// two vocabulary words one slip away stays as it is, and forms of one
// word (by the caller's stemmer) count as one.
package slips
