// Package childproc runs a command as a transparent wrapper would, the
// way `agent3md run --exec` runs a filled command: the signals a
// supervisor or a closed terminal sends the wrapper (SIGTERM, SIGHUP, and
// off a terminal SIGINT) are passed on to the command — to its whole
// process group when it has one of its own, so a shell's children stop
// too — and the wrapper waits for the command's own exit status, reported
// as a shell reports it (128+N for a death by signal N, 126 and 127 for a
// command that could not start). Killing the command outright instead
// would give it no chance to clean up and orphan what it started.
package childproc
