// Package textclip shortens text for people to read, in the module's one
// way each: Bytes bounds what a message echoes of its input (a path, a
// URI, a server's error) by bytes, cut on a UTF-8 boundary; Runes bounds
// text shown as prose (a description, a table column) by characters, cut
// at a word when one is near the end. Both end a cut text with "…"; Cut
// gives the boundary itself to callers that add their own note.
//
// It does not escape or sanitise: callers quote (%q) or make the text
// valid UTF-8 (strings.ToValidUTF8) as their output needs.
package textclip
