// acp_commands.mjs drives `aidex acp` with the official ACP TypeScript
// SDK's client side and sends built-in slash commands as prompts. Usage:
// node acp_commands.mjs SDK_ENTRY WORKSPACE AIDEX [ARGS...]. It prints one
// JSON object: the updates seen (with the phase, the command sent) and
// each prompt's stop reason.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const [sdkEntry, ws, bin, ...args] = process.argv.slice(2);
const acp = await import(sdkEntry);

const child = spawn(bin, args, { stdio: ["pipe", "pipe", "inherit"], env: process.env });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const out = { updates: [], stops: {} };
const app = acp.client({ name: "aidex-test" });
app.onNotification("session/update", async (ctx) => {
  out.updates.push({ phase: out.phase, ...ctx.params.update });
});

await app.connectWith(stream, async (ctx) => {
  await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const s = await ctx.request("session/new", { cwd: ws, mcpServers: [] });
  for (const cmd of ["/help", "/cost", "/compact", "/cost everything", "/init"]) {
    out.phase = cmd;
    const r = await ctx.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: cmd }] });
    out.stops[cmd] = r.stopReason;
  }
});
child.stdin.end();
console.log(JSON.stringify(out));
child.kill();
