// Drives MCP servers with the official TypeScript SDK's Client, as the assistants built on it do
// (Claude Desktop, Claude Code, Cursor, VS Code and the MCP Inspector all use this client).
//
//   node drive.mjs PLAN.json          (or the plan on standard input when no file is given)
//
// The plan: {"servers": [{"name", "stdio": {"command", "args"?, "env"?, "cwd"?}
//                                 | "http": {"url", "headers"?}, "timeoutMs"?,
//                         "calls": [{"id"?, "tool", "arguments", "timeoutMs"?}],
//                         "bench"?: {"tool", "arguments", "count", "warmup"?}}]}
// An argument value {"$ref": [callId, key, ...]} is replaced by the value at that path in the
// structuredContent of an earlier call of the same server (a composition's id, for instance).
// A server's "timeoutMs" bounds its initialize and tools/list (the SDK's 60 s by default: a stdio
// server started on a loaded machine may take longer than that to import and answer).
// The servers are driven one after the other, each with its own Client and transport. The report,
// one JSON object on stdout:
//   {"node": version, "sdk": version, "servers": {name: {
//       "serverInfo", "protocolVersion", "tools": [the tools/list result's tools, as the SDK
//       returned them], "calls": [{"id", "tool", "result": CallToolResult as the client returned
//       it} | {"id", "tool", "error": {"name", "message", "code", "data"}}],
//       "bench"?: {"tool", "count", "errors", "firstError", "seconds", "perSecond"}: count
//       sequential calls after warmup untimed ones, each awaited before the next is sent,
//       "error"?: a failure to connect or list, "stderr": the stdio server's stderr (its tail)}}}
// An error the SDK raised (its outputSchema check of structuredContent included) is reported as
// that call's "error": the text a TypeScript client would show.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// the package's exports map hides its package.json: read it beside this script
const SDK_VERSION = JSON.parse(readFileSync(new URL(
  "node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url), "utf8")).version;
const STDERR_TAIL = 4000;

function describe(error) {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const out = { name: error.name || error.constructor?.name, message: error.message };
  if (error.code !== undefined) out.code = error.code;
  if (error.data !== undefined) out.data = error.data;
  return out;
}

function transportFor(server, stderr) {
  if (server.stdio) {
    const { command, args = [], env, cwd } = server.stdio;
    const transport = new StdioClientTransport({ command, args, env, cwd, stderr: "pipe" });
    transport.stderr?.on("data", (chunk) => {
      stderr.text = (stderr.text + chunk.toString()).slice(-STDERR_TAIL);
    });
    return transport;
  }
  if (server.http) {
    const { url, headers = {} } = server.http;
    return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  }
  throw new Error(`server ${server.name}: neither "stdio" nor "http"`);
}

class PlanError extends Error {
  constructor(message) {
    super(message);
    this.name = "PlanError";
  }
}

function resolveRefs(value, done) {
  if (Array.isArray(value)) return value.map((item) => resolveRefs(item, done));
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value.$ref) && Object.keys(value).length === 1) {
    const [id, ...path] = value.$ref;
    const earlier = done.find((entry) => entry.id === id);
    const ref = JSON.stringify(value.$ref);
    if (!earlier?.result) throw new PlanError(`$ref ${ref}: call ${id} has no result`);
    let found = earlier.result.structuredContent;
    for (const key of path) found = found?.[key];
    if (found === undefined) {
      throw new PlanError(`$ref ${ref}: not in call ${id}'s structuredContent`);
    }
    return found;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v, done)]));
}

async function drive(server) {
  const stderr = { text: "" };
  const report = { calls: [] };
  const client = new Client({ name: "harmony-ts-clients", version: "1.0.0" });
  const transport = transportFor(server, stderr);
  try {
    const startup = server.timeoutMs === undefined ? undefined : { timeout: server.timeoutMs };
    await client.connect(transport, startup);
    report.serverInfo = client.getServerVersion();
    report.protocolVersion = transport.protocolVersion ?? null;  // HTTP only: stdio keeps none
    // listTools also gives the client the tools' outputSchemas, which callTool then enforces
    report.tools = (await client.listTools(undefined, startup)).tools;
    for (const call of server.calls ?? []) {
      const entry = { id: call.id ?? call.tool, tool: call.tool };
      try {
        const args = resolveRefs(call.arguments ?? {}, report.calls);
        entry.result = await client.callTool({ name: call.tool, arguments: args },
                                             undefined, { timeout: call.timeoutMs ?? 120000 });
      } catch (error) {
        entry.error = describe(error);
      }
      report.calls.push(entry);
    }
    if (server.bench) {
      const { tool, arguments: args = {}, count, warmup = 0 } = server.bench;
      for (let i = 0; i < warmup; i++) await client.callTool({ name: tool, arguments: args });
      let errors = 0;
      let firstError = null;
      const start = performance.now();
      for (let i = 0; i < count; i++) {
        try {
          const result = await client.callTool({ name: tool, arguments: args });
          if (result.isError) {
            errors++;
            firstError ??= { result };
          }
        } catch (error) {
          errors++;
          firstError ??= describe(error);
        }
      }
      const seconds = (performance.now() - start) / 1000;
      report.bench = { tool, count, errors, seconds, perSecond: count / seconds, firstError };
    }
  } catch (error) {
    report.error = describe(error);
  } finally {
    await client.close().catch(() => {});
  }
  if (server.stdio) report.stderr = stderr.text;
  return report;
}

const plan = JSON.parse(readFileSync(process.argv[2] ?? 0, "utf8"));
const out = { node: process.versions.node, sdk: SDK_VERSION, servers: {} };
for (const server of plan.servers) {
  out.servers[server.name] = await drive(server);
}
process.stdout.write(JSON.stringify(out) + "\n");
