// Package digest writes the content digest the skills extension carries
// for every file of a skill (docs/protocol.md §7, skill://…/_manifest and
// skills/list): "sha256:" and the lowercase hex of the SHA-256 of the
// file's exact bytes. It is the one home of that form, so the folders
// that compute it, the loader that serves it and the clients that check
// it cannot drift apart.
//
// It does not read files or compare digests: callers hash the bytes they
// hold and compare strings.
package digest
