// acp_misc.mjs drives `aidex acp` with the official ACP TypeScript SDK's
// client. Usage: node acp_misc.mjs SDK_ENTRY WORKSPACE AIDEX [ARGS...].
// ACP_MODE=auth: initialize, authenticate and session/new with no key;
// ACP_MODE=content: a session with the client's MCP server (ACP_MCP, a
// stdio command) and a prompt of text, an image and an embedded file;
// ACP_MODE=stops: three prompts, their stop reasons; ACP_MODE=overlap: a
// second prompt while the first runs.
// It prints one JSON object with what it saw.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const [sdkEntry, ws, bin, ...args] = process.argv.slice(2);
const acp = await import(sdkEntry);
const child = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"], env: process.env });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const out = { updates: [] };
const app = acp.client({ name: "aidex-test" });
app.onRequest("session/request_permission", async () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }));
let onChunk = null;
app.onNotification("session/update", async (ctx) => {
  out.updates.push(ctx.params.update);
  if (onChunk && ctx.params.update.sessionUpdate === "agent_message_chunk") onChunk();
});
const attempt = async (f) => { try { return { ok: await f() }; } catch (e) { return { code: e.code, message: e.message, data: e.data }; } };

await app.connectWith(stream, async (ctx) => {
  out.init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  if (process.env.ACP_MODE === "auth") {
    out.authenticate = await attempt(() => ctx.request("authenticate", { methodId: "api-key" }));
    out.newSession = await attempt(() => ctx.request("session/new", { cwd: ws, mcpServers: [] }));
    out.relative = await attempt(() => ctx.request("session/new", { cwd: "relative/dir", mcpServers: [] }));
    return;
  }
  if (process.env.ACP_MODE === "overlap") {
    const s = await ctx.request("session/new", { cwd: ws, mcpServers: [] });
    const chunk = new Promise((resolve) => { onChunk = resolve; });
    const first = ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "long" }] });
    await chunk;
    onChunk = null;
    const second = ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "instead" }] });
    out.stops = [(await attempt(() => first)).ok?.stopReason, (await attempt(() => second)).ok?.stopReason];
    return;
  }
  if (process.env.ACP_MODE === "stops") {
    const s = await ctx.request("session/new", { cwd: ws, mcpServers: [] });
    out.stops = [];
    for (const text of ["one", "two", "three"]) {
      out.stops.push((await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text }] })).stopReason);
    }
    return;
  }
  const s = await ctx.request("session/new", { cwd: ws, mcpServers: [
    { name: "everything", command: process.env.ACP_MCP, args: [], env: [] },
    { name: "broken", command: "/bin/sh", args: [process.env.ACP_BROKEN_MCP], env: [] },
  ] });
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
  out.stop = (await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [
    { type: "text", text: "look at these" },
    { type: "image", mimeType: "image/png", data: png },
    { type: "resource", resource: { uri: "file://" + ws + "/notes.md", mimeType: "text/markdown", text: "embedded notes text" } },
    { type: "resource_link", uri: "file://" + ws + "/main.go", name: "main.go" },
  ] })).stopReason;
  // Editors send the same servers with every session.
  out.second = await attempt(() => ctx.request("session/new", { cwd: ws, mcpServers: [{ name: "everything", command: process.env.ACP_MCP, args: [], env: [] }] }));
});
child.stdin.end();
console.log(JSON.stringify(out));
child.kill();
