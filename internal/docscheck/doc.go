// Package docscheck holds the documentation to the figures of the code it
// describes. A test lists Facts: a constant's Go name, its value (taken
// from the constant, never copied) and the phrases that quote it in
// README.md and docs/*.md; Check finds every such phrase and reports each
// figure that differs from the value, and each fact no phrase mentions any
// more, as "file:line: …" naming the constant. A figure is read as people
// write it: "4,096", "100_000", "64 KiB", "4 MiB", "20 s", "2 minutes",
// "five".
//
// It knows nothing of any package's constants: the tests that own them
// (cmd/agent3md for flags and exported limits, a package for its own
// unexported ones) build the facts. It reads files and does not decide
// which documents exist: Load reads README.md and docs/*.md under a
// root. With DOCSCHECK_DUMP set in the environment, Hold logs every
// mention it found, to check that a new pattern finds what it means to.
package docscheck
