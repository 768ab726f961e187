// Package termsafe keeps what others wrote from driving the user's
// terminal. Text from an agent file or a skills folder (names, triggers,
// descriptions, bodies, file names) is not ours: one carrying an escape
// sequence would reach the terminal through `skills`, `route`, `validate`
// or an error message, and could retitle the window, write the clipboard
// (OSC 52) or hide and fake what is shown. So when stdout or stderr is a
// terminal, what the commands write there goes through Wrap, which shows
// every control character as an escape ("\x1b") instead of sending it. A
// pipe or a file gets the bytes unchanged, so scripts and `get > file` see
// exactly what the agent holds; the MCP stream, the progress bar and a
// run command's own output never pass through it (docs/cli.md).
package termsafe
