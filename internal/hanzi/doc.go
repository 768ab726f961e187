// Package hanzi maps Chinese characters between their traditional and
// simplified forms, one character at a time, so that a request written in
// one script can be read against an agent written in the other: 訂單 is
// 订单 to a reader of either.
//
// The tables are OpenCC's character tables (TSCharacters.txt and
// STCharacters.txt, from BYVoid/OpenCC as the Go port
// github.com/longbridgeapp/opencc v0.3.13 ships them; Apache License 2.0,
// in OPENCC-LICENSE). Each line of ts.txt and st.txt is a character and
// its first conversion, kept only where both are one character and they
// differ; a character with several conversions takes OpenCC's first, the
// commonest. Character by character is what routing needs: it compares
// words, and a word's characters convert one by one in all but a few
// phrase-level cases (OpenCC's phrase tables), which only change how a
// rarer word is written, not whether it matches.
//
// The tables are parsed on first use (about 8,000 lines), so a process
// that never routes Chinese never pays for them.
package hanzi
