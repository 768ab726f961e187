// Package editdist measures how far apart two short strings are, for the
// "did you mean" hints of the validator and the command line: a flag, a
// frontmatter key or a directive a person mistyped.
package editdist
