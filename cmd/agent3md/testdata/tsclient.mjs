// tsclient.mjs drives `agent3md mcp` over stdio, or `agent3md serve` over
// Streamable HTTP, with the official MCP TypeScript SDK client (npm
// @modelcontextprotocol/sdk), the client most MCP hosts are built on.
// TestInteropTypeScriptSDK and TestInteropTypeScriptSDKHTTP
// (interop_ts_test.go) run it under Bun with the SDK that
// `scripts/conformance.sh --install` puts in its cache folder.
//
//   bun tsclient.mjs BIN AGENT      (AGENT: a .3md file or a skills folder)
//   bun tsclient.mjs URL AGENT      (URL: http(s)://…/mcp/<slug> of a running
//                                    `agent3md serve`; AGENT only names the
//                                    run; TSCLIENT_TOKEN, when set, is sent
//                                    as a bearer token)
//
// The point is the SDK's own checks: every result is parsed with its zod
// schemas, and callTool validates a tool's structuredContent against the
// outputSchema that listTools announced (AJV) and throws when they differ.
// So every call below that throws is a failure: the driver prints which
// call, with what arguments, and exits 1. It also checks a few answers an
// SDK client relies on (isError for a bad call, the skill it asked for).
// On success it prints one summary line.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [bin, agent] = process.argv.slice(2);
if (!bin || !agent) {
  console.error("usage: bun tsclient.mjs BIN|URL AGENT");
  process.exit(2);
}

// Resources read and prompts fetched per agent: enough to cover every kind
// (SKILL.md, aliases, folder files) without reading a large agent twice over.
const maxReads = 50;
// Pages followed in any one list before the driver calls it a cursor loop.
const maxPages = 1000;

let calls = 0;

function fail(what, detail) {
  console.error(`tsclient: ${agent}: FAIL ${what}: ${detail}`);
  process.exit(1);
}

function check(ok, what, detail) {
  if (!ok) fail(what, detail);
}

// step runs one SDK call; a thrown error (protocol error, schema mismatch,
// outputSchema violation, timeout) fails the run, naming the call.
async function step(what, fn) {
  calls++;
  try {
    return await fn();
  } catch (err) {
    fail(what, err && err.stack ? err.stack : String(err));
  }
}

// tool calls a tool through client.callTool, so the SDK validates its
// structuredContent, and checks isError against wantError (null: either).
async function tool(name, args, wantError = false) {
  const what = `tools/call ${name} ${JSON.stringify(args)}`;
  const res = await step(what, () => client.callTool({ name, arguments: args }));
  check(Array.isArray(res.content) && res.content.length >= 1 && res.content[0].type === "text",
    what, `content is not a text block: ${JSON.stringify(res.content)}`);
  if (wantError !== null) {
    check(Boolean(res.isError) === wantError, what,
      `isError = ${Boolean(res.isError)}, want ${wantError}: ${res.content[0].text.slice(0, 300)}`);
  }
  return res;
}

// pages collects every page of a paginated list method of the client.
async function pages(what, list, key) {
  const out = [];
  let cursor;
  for (let n = 0; ; n++) {
    check(n < maxPages, what, `more than ${maxPages} pages: the cursor loops`);
    const res = await step(`${what} cursor=${cursor ?? "-"}`, () => list(cursor ? { cursor } : undefined));
    out.push(...res[key]);
    if (!res.nextCursor) return out;
    cursor = res.nextCursor;
  }
}

// sample is a prompt argument's value for the type its description names,
// "The x input (number)." (prompt arguments are strings on the wire).
function sample(arg) {
  const m = /\(([^)]*)\)\.?$/.exec(arg.description ?? "");
  switch (m && m[1]) {
    case "number": return "3";
    case "boolean": return "true";
    case "object": return '{"k":"v"}';
    case "array": return '["a"]';
  }
  return "x";
}

const client = new Client({ name: "agent3md-tsclient", version: "1" });
const overHTTP = /^https?:\/\//.test(bin);
let transport;
if (overHTTP) {
  // The transport a remote MCP host uses: initialize, then a GET for the
  // server's event stream (the stream of change notifications of a
  // watched agent, held open for the whole run; 405 with --no-watch,
  // which the SDK accepts), then one POST per message; DELETE on close.
  const token = process.env.TSCLIENT_TOKEN;
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  transport = new StreamableHTTPClientTransport(new URL(bin), { requestInit });
} else {
  // The server's stderr (its log) is inherited, so a failure shows it too.
  transport = new StdioClientTransport({ command: bin, args: ["mcp", "--no-cache", agent], stderr: "inherit" });
}
// A transport error the SDK only reports here (a failed GET stream, a
// POST answered with an unexpected status) fails the run too; except once
// the driver closes: the SDK then aborts the readers of event streams
// whose answer it already has, and reports each abort here.
let closing = false;
transport.onerror = (err) => {
  if (!closing) fail("transport", err && err.stack ? err.stack : String(err));
};
await step("connect (initialize)", () => client.connect(transport));
check(client.getServerCapabilities()?.tools, "initialize", "the server announced no tools capability");

// tools/list: the SDK caches each tool's outputSchema here and validates
// every later callTool against it. It clears that cache on each call, so
// the tools must come in one page for all of them to be checked.
const tools = await step("tools/list", () => client.listTools());
check(!tools.nextCursor, "tools/list", "the tools span several pages; the SDK would validate only the last");
const toolNames = tools.tools.map((t) => t.name).join(" ");
check(toolNames === "list_skills route_skill get_skill resolve_skill fill_skill", "tools/list", `tools are ${toolNames}`);
// get_skill and resolve_skill answer Markdown as text alone, with no
// outputSchema: hosts that see structured content show the model that
// instead of the text (docs/protocol.md §4). The other tools keep theirs.
// route_skill, get_skill and resolve_skill answer with text alone
// (docs/protocol.md §4): hosts hand the model a structured copy instead of
// the text when there is one.
const textOnly = new Set(["route_skill", "get_skill", "resolve_skill"]);

// routed reads route_skill's text: the skill names its lines lead with
// ("name  (score N; …)"), none for "no skill matched"; and checks that no
// structured copy came with it.
function routed(res, what) {
  check(res.structuredContent === undefined, what, "route_skill answered structured content beside its text");
  const text = res.content[0].text;
  if (text === "no skill matched") return [];
  return text.split("\n").map((line) => line.split("  (")[0]);
}
for (const t of tools.tools) {
  check(Boolean(t.outputSchema) !== textOnly.has(t.name), "tools/list",
    textOnly.has(t.name) ? `${t.name} declares an outputSchema` : `${t.name} has no outputSchema, so its results go unchecked`);
}

// list_skills: the text is the reference server's JSON array; page through
// structuredContent.nextCursor for the whole catalog.
const skills = [];
{
  let cursor;
  for (let n = 0; ; n++) {
    check(n < maxPages, "list_skills", `more than ${maxPages} pages`);
    const res = await tool("list_skills", cursor ? { cursor } : {});
    let page;
    try {
      page = JSON.parse(res.content[0].text);
    } catch (err) {
      fail("list_skills", `text is not JSON: ${err}`);
    }
    check(Array.isArray(page), "list_skills", "text is not a JSON array");
    check(res.structuredContent.skills.length === page.length, "list_skills",
      `text lists ${page.length} skills, structuredContent ${res.structuredContent.skills.length}`);
    skills.push(...page);
    cursor = res.structuredContent.nextCursor;
    if (!cursor) break;
  }
}
check(skills.length > 0, "list_skills", "no skills");

for (const s of skills) {
  const got = await tool("get_skill", { name: s.name });
  check(got.structuredContent === undefined && got.content.length === 1 && got.content[0].text.length > 0, `get_skill ${s.name}`,
    `want the body as one text block alone: ${JSON.stringify(got).slice(0, 300)}`);
  const res = await tool("resolve_skill", { name: s.name });
  check(res.structuredContent === undefined && res.content[0].text.startsWith(`### ${s.name}\n`), `resolve_skill ${s.name}`,
    `want its own section first, as text: ${res.content[0].text.slice(0, 120)}`);
  // A skill without a command template is a tool error, not a thrown one.
  const hasTool = s.tool !== null;
  await tool("fill_skill", { name: s.name, values: {} }, !hasTool);
  const relaxed = await tool("fill_skill", { name: s.name, values: {}, tier: "relaxed" }, !hasTool);
  if (hasTool) {
    check(relaxed.structuredContent.confirm === true, `fill_skill ${s.name} tier relaxed`, "confirm is not true");
  }
  if (s.triggers.length > 0) {
    const r = await tool("route_skill", { text: s.triggers.join(", "), limit: 0 });
    const names = routed(r, `route_skill ${s.name}'s triggers`);
    check(names.includes(s.name), `route_skill ${s.name}'s triggers`, `${s.name} is not among ${names.join(", ")}`);
  }
  const words = s.description.split(/\s+/).filter(Boolean).slice(0, 8).join(" ");
  if (words) await tool("route_skill", { text: words, mode: "ranked", limit: 3 });
  await tool("route_skill", { text: s.name, mode: "spec" });
}
const nonsense = await tool("route_skill", { text: "zzqx vvkw" });
check(routed(nonsense, "route_skill nonsense").length === 0, "route_skill nonsense",
  `matched ${routed(nonsense, "route_skill nonsense").join(", ")}`);
await tool("route_skill", { text: "what will the weather be like in Lisbon next Tuesday" });
await tool("route_skill", { text: "what will the weather be like in Lisbon next Tuesday", mode: "spec" });

// list_skills one skill a page for a query: every page's cursor followed,
// and the pages add up to what the answer says matched.
{
  const query = skills[0].name.split(/[^A-Za-z0-9]+/).find(Boolean) ?? skills[0].name;
  let cursor, seen = 0, matched = -1;
  for (let n = 0; ; n++) {
    check(n < maxPages, `list_skills query ${query}`, `more than ${maxPages} pages`);
    const args = { query, limit: 1, ...(cursor ? { cursor } : {}) };
    const res = await tool("list_skills", args);
    check(res.structuredContent.skills.length <= 1, `list_skills ${JSON.stringify(args)}`, "more than one skill on a page of limit 1");
    seen += res.structuredContent.skills.length;
    matched = res.structuredContent.matched;
    cursor = res.structuredContent.nextCursor;
    if (!cursor) break;
  }
  check(seen === matched && seen >= 1, `list_skills query ${query}`, `${seen} skills over the pages, matched says ${matched}`);
}

// Bad calls are tool results with isError, not protocol errors: an SDK
// host shows them to the model, which can correct itself.
const unknown = await tool("get_skill", { name: "no-such-skill-zzqx" }, true);
check(/Unknown skill/.test(unknown.content[0].text), "get_skill unknown", unknown.content[0].text);
await tool("resolve_skill", { name: "no-such-skill-zzqx" }, true);
await tool("fill_skill", { name: skills[0].name, values: "not an object" }, true);
await tool("route_skill", { text: 42 }, true);
await tool("list_skills", { limit: 0 }, true);
// An unknown tool is a JSON-RPC error the SDK throws; the session goes on.
calls++;
let threw = false;
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
} catch (err) {
  threw = /no_such_tool/.test(String(err));
}
check(threw, "tools/call no_such_tool", "did not throw an error naming the tool");
await tool("list_skills", { limit: 1 });

// Resources: every page listed, the first maxReads read; the templates.
const resources = await pages("resources/list", (p) => client.listResources(p), "resources");
check(resources.length > 0, "resources/list", "no resources");
for (const r of resources.slice(0, maxReads)) {
  const res = await step(`resources/read ${r.uri}`, () => client.readResource({ uri: r.uri }));
  check(res.contents.length >= 1, `resources/read ${r.uri}`, "no contents");
}
const templates = await pages("resources/templates/list", (p) => client.listResourceTemplates(p), "resourceTemplates");
check(templates.length > 0, "resources/templates/list", "no templates");

// Prompts: each fetched with every required argument filled; an error here
// is the server refusing what it listed.
const prompts = await pages("prompts/list", (p) => client.listPrompts(p), "prompts");
check(prompts.length > 0, "prompts/list", "no prompts");
for (const p of prompts) {
  const args = {};
  for (const a of p.arguments ?? []) {
    if (a.required) args[a.name] = sample(a);
  }
  const res = await step(`prompts/get ${p.name} ${JSON.stringify(args)}`, () => client.getPrompt({ name: p.name, arguments: args }));
  check(res.messages.length > 0, `prompts/get ${p.name}`, "no messages");
}

if (overHTTP) {
  // A request with a progress token, from a client that accepts event
  // streams, is answered as one: the SDK must read its answer from it.
  const streamed = await step("tools/call list_skills with a progress token (SSE answer)",
    () => client.callTool({ name: "list_skills", arguments: { limit: 1 } }, undefined, { onprogress: () => {} }));
  check(streamed.structuredContent?.skills?.length === 1, "tools/call over SSE", JSON.stringify(streamed).slice(0, 300));
  // The SDK's DELETE when a host ends a session: 405 from a stateless
  // server, which the SDK takes as "nothing to end".
  await step("terminateSession (DELETE)", () => transport.terminateSession());
}
closing = true;
await step("close", () => client.close());
console.log(`tsclient: ${agent}: ok, ${calls} calls (${skills.length} skills, ` +
  `${Math.min(resources.length, maxReads)}/${resources.length} resources read, ${templates.length} templates, ` +
  `${prompts.length} prompts) with server ${client.getServerVersion()?.name}`);
