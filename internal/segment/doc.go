// Package segment cuts text in scripts written without spaces (Han, the
// Japanese kana, Hangul) at the words of a vocabulary. A Chinese request
// is one token to a reader of maximal letter runs ("请部署结账服务" never
// equals a word "部署"); cut at the words a vocabulary holds, longest
// match first and left to right, with the text between them kept as
// words, it meets them. The router builds a Segmenter from an agent's
// trigger and name words (docs/architecture.md §5, "Unspaced scripts").
//
// Nothing here knows about skills or routing: callers decide which words
// a Segmenter holds and bound how many words a split may produce.
package segment
