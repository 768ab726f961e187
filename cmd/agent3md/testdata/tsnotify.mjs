// tsnotify.mjs checks that the change notifications of `agent3md mcp` (stdio)
// and `agent3md serve` (Streamable HTTP) reach the official MCP TypeScript
// SDK client (npm @modelcontextprotocol/sdk): the client most MCP hosts are
// built on, and a strict one, which parses every incoming message with its
// JSON-RPC schema and reports the ones that fail to client.onerror instead
// of calling their handler. TestNotificationsTypeScriptSDK
// (notify_test.go) runs it under Bun.
//
//   bun tsnotify.mjs BIN AGENT URI       stdio: spawns `BIN mcp AGENT`
//   bun tsnotify.mjs URL AGENT URI       HTTP, 2026-07-28 listen
//   bun tsnotify.mjs URL AGENT URI get   HTTP, the handshake-era GET stream
//
// It registers a handler for tools, prompts and resources list_changed and
// for resources/updated, subscribes to URI (resources/subscribe on stdio;
// over HTTP, the 2026-07-28 subscriptions/listen request that carries
// them), prints "tsnotify: ready" and waits. With "get" it uses the SDK's
// transport as any host does, with no header of its own: the SDK opens
// its GET stream after the handshake, and the driver waits for that
// stream (watching the SDK's fetch, changing nothing) before "ready";
// resources.subscribe must then not be offered (a stateless server cannot
// know a client's subscriptions over HTTP) and resources/updated is not
// expected. The test then edits the agent; every handler must fire within
// the deadline, and client.onerror must never be called. On success it
// prints one summary line starting "tsnotify: ok".

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ToolListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [target, agent, uri, mode] = process.argv.slice(2);
if (!target || !agent || !uri || (mode !== undefined && mode !== "get")) {
  console.error("usage: bun tsnotify.mjs BIN|URL AGENT URI [get]");
  process.exit(2);
}
const overGet = mode === "get";
// How long the handlers may take after "ready": a reload settles in well
// under a second; this only bounds a server that never sends.
const deadlineMs = 60_000;

let closing = false;
function fail(what, detail) {
  console.error(`tsnotify: ${agent}: FAIL ${what}: ${detail}`);
  process.exit(1);
}

const client = new Client({ name: "agent3md-tsnotify", version: "1" });
// Every message the transport could not parse (a ZodError for
// "params": null) and every transport failure lands here.
client.onerror = (err) => {
  if (!closing) fail("client.onerror", err && err.stack ? err.stack : String(err));
};

const fired = { tools: 0, prompts: 0, resources: 0, updated: 0 };
let wake = () => {};
const allFired = () => fired.tools > 0 && fired.prompts > 0 && fired.resources > 0 && (overGet || fired.updated > 0);
const note = (key) => () => {
  fired[key]++;
  if (allFired()) wake();
};
client.setNotificationHandler(ToolListChangedNotificationSchema, note("tools"));
client.setNotificationHandler(PromptListChangedNotificationSchema, note("prompts"));
client.setNotificationHandler(ResourceListChangedNotificationSchema, note("resources"));
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
  if (n.params.uri !== uri) fail("resources/updated", `for ${n.params.uri}, subscribed to ${uri}`);
  note("updated")();
});

const overHTTP = /^https?:\/\//.test(target);
if (overGet && !overHTTP) fail("usage", "get needs an HTTP URL");
let transport;
// Resolved once the SDK's GET stream is open (its answer's headers are
// in: the server has registered it), or null when the server refused it.
let getOpened;
const getOpen = new Promise((resolve) => { getOpened = resolve; });
if (overGet) {
  const watchGet = async (url, init) => {
    const res = await fetch(url, init);
    if ((init?.method ?? "GET") === "GET") getOpened(res.ok && (res.headers.get("content-type") ?? "").startsWith("text/event-stream") ? res.status : null);
    return res;
  };
  transport = new StreamableHTTPClientTransport(new URL(target), { fetch: watchGet });
} else if (overHTTP) {
  // A 2026-07-28 request carries its revision in headers that agree with
  // its body (docs/protocol.md §12); the SDK sends its negotiated
  // revision, so the listen request's headers are set here, the way a
  // host adds headers to the SDK's fetch.
  const fetchWithListen = (url, init) => {
    if (init && typeof init.body === "string" && init.body.includes('"method":"subscriptions/listen"')) {
      const headers = new Headers(init.headers);
      headers.set("mcp-protocol-version", "2026-07-28");
      headers.set("mcp-method", "subscriptions/listen");
      init = { ...init, headers };
    }
    return fetch(url, init);
  };
  transport = new StreamableHTTPClientTransport(new URL(target), { fetch: fetchWithListen });
} else {
  transport = new StdioClientTransport({ command: target, args: ["mcp", "--no-cache", agent], stderr: "inherit" });
}

try {
  await client.connect(transport);
} catch (err) {
  fail("connect", err && err.stack ? err.stack : String(err));
}

const listen = new AbortController();
if (overGet) {
  const caps = client.getServerCapabilities() ?? {};
  if (!caps.tools?.listChanged || !caps.prompts?.listChanged || !caps.resources?.listChanged || caps.resources?.subscribe) {
    fail("initialize", `capabilities ${JSON.stringify(caps)}: a watched agent over HTTP must declare listChanged, and not subscribe`);
  }
  const status = await Promise.race([getOpen, new Promise((r) => setTimeout(() => r("none"), deadlineMs))]);
  if (status === "none") fail("GET stream", `the SDK opened none within ${deadlineMs} ms`);
  if (status === null) fail("GET stream", "the server refused it (the SDK gives up on a 405 silently)");
} else if (overHTTP) {
  const params = {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    },
    notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: [uri] },
  };
  // Answered only when the server shuts down; cancelled at the end.
  const acked = new Promise((resolve) => {
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === "notifications/subscriptions/acknowledged") resolve(n.params);
    };
  });
  client.request({ method: "subscriptions/listen", params }, ResultSchema, { signal: listen.signal, timeout: 10 * deadlineMs })
    .catch((err) => {
      if (!listen.signal.aborted) fail("subscriptions/listen", err && err.stack ? err.stack : String(err));
    });
  const ack = await Promise.race([acked, new Promise((r) => setTimeout(() => r(null), deadlineMs))]);
  if (!ack) fail("subscriptions/listen", "no acknowledgement");
  const n = ack.notifications ?? {};
  if (!n.toolsListChanged || !n.promptsListChanged || !n.resourcesListChanged || !(n.resourceSubscriptions ?? []).includes(uri)) {
    fail("subscriptions/listen", `acknowledged ${JSON.stringify(ack)}: the server does not honour every notification`);
  }
} else {
  const caps = client.getServerCapabilities() ?? {};
  if (!caps.tools?.listChanged || !caps.prompts?.listChanged || !caps.resources?.listChanged || !caps.resources?.subscribe) {
    fail("initialize", `capabilities ${JSON.stringify(caps)}: a watched agent must declare listChanged and subscribe`);
  }
  try {
    await client.subscribeResource({ uri });
  } catch (err) {
    fail(`resources/subscribe ${uri}`, String(err));
  }
}

// Read what was subscribed to, as a client does: the edit then changes
// content the client has seen. (An edit made while the server is still
// loading the agent is part of the first version it serves, not a change.)
try {
  await client.readResource({ uri });
} catch (err) {
  fail(`resources/read ${uri}`, String(err));
}

console.log("tsnotify: ready");
const ok = await new Promise((resolve) => {
  wake = () => resolve(true);
  if (allFired()) resolve(true);
  setTimeout(() => resolve(false), deadlineMs);
});
if (!ok) fail("notifications", `not every handler fired within ${deadlineMs} ms: ${JSON.stringify(fired)}`);
closing = true;
listen.abort();
await client.close();
console.log(`tsnotify: ok ${agent}: handlers fired ${JSON.stringify(fired)} over ${overGet ? "http GET stream" : overHTTP ? "http" : "stdio"}`);
process.exit(0);
