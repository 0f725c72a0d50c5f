#!/usr/bin/env python3
"""A consumer of `claude -p --output-format stream-json --verbose`, written
to Claude Code's documented message shapes (the way CI scripts read it):
the system/init line, the assistant messages' text and tool_use blocks,
the user lines' tool results, and the final result message.

Reads the stream on stdin; prints what it found, one fact a line; exits 1
when the result is an error (as such scripts do), 2 when the stream is
not Claude's."""
import json
import sys

init = None
texts = []
tools = []
results = []
outcomes = []
for raw in sys.stdin:
    raw = raw.strip()
    if not raw:
        continue
    msg = json.loads(raw)
    kind = msg["type"]
    if kind == "system" and msg.get("subtype") == "init":
        init = msg
    elif kind == "assistant":
        assert msg["parent_tool_use_id"] is None or isinstance(msg["parent_tool_use_id"], str)
        message = msg["message"]
        assert message["role"] == "assistant", message
        for block in message["content"]:
            if block["type"] == "text":
                texts.append(block["text"])
            elif block["type"] == "tool_use":
                tools.append(block["name"] + " " + json.dumps(block["input"], sort_keys=True))
    elif kind == "user":
        for block in msg["message"]["content"]:
            if block["type"] == "tool_result":
                results.append(("error " if block.get("is_error") else "ok ") + " / ".join(str(block["content"]).strip().splitlines()))
    elif kind == "result":
        outcomes.append(msg)

if init is None or not outcomes:
    print("not a Claude stream", file=sys.stderr)
    sys.exit(2)
print("INIT", init["session_id"] != "", init["cwd"] != "", init["model"], init["permissionMode"], "Bash" in init["tools"])
for t in tools:
    print("TOOL", t)
for r in results:
    print("RESULT", r)
print("TEXT", " ".join(texts))
failed = False
for res in outcomes:
    assert res["session_id"] == init["session_id"]
    print("OUTCOME", res["subtype"], res["is_error"], res["num_turns"], res["result"],
          res["total_cost_usd"] >= 0, res["duration_ms"] >= 0, res["usage"]["output_tokens"], len(res["permission_denials"]))
    failed = failed or res["is_error"]
sys.exit(1 if failed else 0)
