// Package buildinfo says what a binary knows about its own build: the
// module version ('go install …@v1.2.3' records it), the commit and its
// time (a build inside a git checkout records them; a pseudo-version names
// the commit too), whether the tree was modified, and the toolchain. A
// release build may override the version and name the commit with
// -ldflags when the build info has none (-buildvcs=false, or a tree
// without .git). `agent3md version` prints Info's String; the MCP
// serverInfo, logs and --version carry the version alone.
package buildinfo
