// acp_client.mjs drives `aidex acp` with the official ACP TypeScript SDK's
// client side. Usage: node acp_client.mjs SDK_ENTRY WORKSPACE AIDEX [ARGS...]
// (AIDEX is started with ARGS and the environment). It prints one JSON
// object with what it saw; the Go test checks it.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { join } from "node:path";

const [sdkEntry, ws, bin, ...args] = process.argv.slice(2);
const acp = await import(sdkEntry);

const child = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"], env: process.env });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const out = { updates: [], permissions: [], editExistedAtAsk: null };
let onChunk = null;
const app = acp.client({ name: "aidex-test" });
app.onRequest("session/request_permission", async (ctx) => {
  const p = ctx.params;
  out.permissions.push(p);
  out.editExistedAtAsk = existsSync(join(ws, "hello.txt"));
  return { outcome: { outcome: "selected", optionId: process.env.ACP_ANSWER || "allow_once" } };
});
app.onNotification("session/update", async (ctx) => {
  const u = ctx.params.update;
  out.updates.push({ phase: out.phase, ...u });
  if (onChunk && u.sessionUpdate === "agent_message_chunk") onChunk(u);
});

await app.connectWith(stream, async (ctx) => {
  out.init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const s = await ctx.request("session/new", { cwd: ws, mcpServers: [] });
  out.newSession = s;
  out.phase = "edit";
  const r1 = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "create hello.txt" }] });
  out.editStop = r1.stopReason;
  out.editLanded = existsSync(join(ws, "hello.txt"));

  out.phase = "cancel";
  const chunk = new Promise((resolve) => { onChunk = resolve; });
  const pending = ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "a long answer" }] });
  await chunk;
  onChunk = null;
  await ctx.notify("session/cancel", { sessionId: s.sessionId });
  out.cancelStop = (await pending).stopReason;

  out.phase = "mode";
  out.setMode = await ctx.request("session/set_mode", { sessionId: s.sessionId, modeId: "plan" });

  out.phase = "load";
  out.load = await ctx.request("session/load", { sessionId: s.sessionId, cwd: ws, mcpServers: [] });
});
child.stdin.end();
console.log(JSON.stringify(out));
child.kill();
