// Package testkit holds the helpers the module's tests share across
// packages: a buffer a logger and a test may use at once, files written
// with their directories, a directory read back as a map for comparing
// states, the repository's agent files, and this process's descriptor
// count.
//
// Only _test.go files import it (cmd/agent3md's layers test holds that),
// so none of it reaches the binary. Like every internal package it
// imports nothing of the module above internal/.
package testkit
