// Package fakemodel is a scripted stand-in for the model APIs that MCP
// hosts talk to, so a test can run a real host (Claude Code, Codex CLI,
// Gemini CLI) non-interactively against a real MCP server with no network
// and no model, and read back exactly what the host handed the model.
//
// A Server listens on 127.0.0.1 and speaks one provider's API (a Dialect):
// the Anthropic Messages API, the OpenAI Responses API or the Gemini API.
// Every request the host sends is recorded as it arrived. A request that is
// a turn of the host's agent loop (it offers the model tools) is answered
// from a Script: the fake reads the tool results already in the
// conversation and plays the next step, a tool call, until the script ends
// and it answers with a final text. Because the step is chosen from the
// conversation and not from a request counter, a host that retries a
// request, or sends side requests of its own (a title, a routing
// classifier, a token count), gets the same answer and the script stays in
// step. Side requests get a short, plausible answer in the shape the host
// asked for.
//
// What the package does not do: it does not model anything. A step sees
// the results so far (so it can call get_skill on whatever route_skill
// ranked first, as a model would) but the choices are the test's.
//
// A Server is safe for concurrent use; hosts send requests in parallel.
package fakemodel
