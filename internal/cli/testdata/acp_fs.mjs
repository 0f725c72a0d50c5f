// acp_fs.mjs drives `aidex acp` with the official ACP TypeScript SDK's
// client offering fs/read_text_file and fs/write_text_file: reads answer
// from an in-memory "editor buffer", writes are recorded and not saved.
// Usage: node acp_fs.mjs SDK_ENTRY WORKSPACE AIDEX [ARGS...]; prints JSON.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const [sdkEntry, ws, bin, ...args] = process.argv.slice(2);
const acp = await import(sdkEntry);
const child = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"], env: process.env });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const out = { reads: [], writes: [], permissions: 0, results: [] };
const buffers = { [ws + "/notes.txt"]: "from the editor buffer\n" };
const app = acp.client({ name: "aidex-test" });
app.onRequest("session/request_permission", async () => {
  out.permissions++;
  return { outcome: { outcome: "selected", optionId: "allow_once" } };
});
app.onRequest("fs/read_text_file", async (ctx) => {
  out.reads.push(ctx.params.path);
  return { content: buffers[ctx.params.path] ?? "" };
});
app.onRequest("fs/write_text_file", async (ctx) => {
  out.writes.push({ path: ctx.params.path, content: ctx.params.content });
  buffers[ctx.params.path] = ctx.params.content;
  return {};
});
app.onNotification("session/update", async (ctx) => {
  const u = ctx.params.update;
  if (u.sessionUpdate === "tool_call") out.calls = [...(out.calls || []), u];
  if (u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed")) {
    out.results.push({ id: u.toolCallId, status: u.status });
  }
});
await app.connectWith(stream, async (ctx) => {
  await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
  const s = await ctx.request("session/new", { cwd: ws, mcpServers: [] });
  out.stop = (await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "edit notes" }] })).stopReason;
});
child.stdin.end();
console.log(JSON.stringify(out));
child.kill();
