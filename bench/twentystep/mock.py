#!/usr/bin/env python3
"""Scripted model for bench/twentystep/run.sh: a 20-step task through the agent's shell tool.

It reuses ../shared/bench/server.py (path in $SERVER_PY) for the wire formats (OpenAI Chat
Completions and Responses, Anthropic Messages, Gemini; streamed or not), its request log
($MOCK_LOG, one JSON line per request with body_bytes and the run's tag from $MOCK_STATE)
and its choice of the shell tool among the offered tools (pick_tool). Only the decision
is replaced: the step is the number of tool results already in the request's
conversation, so a retried or extra request by an agent repeats a step and does not
move the script on. Steps 0..18 call the shell tool with STEPS[n]; from 19 on the answer
is FINAL. A request without tools (an agent's side request: a title, a quota check) is
answered with FINAL_SIDE text. Each logged request also gets "step" and "tool_results".
"""
import importlib.util
import json
import os
import sys
import threading
from http.server import ThreadingHTTPServer

STEPS = [
    "ls",
    "cat README.md",
    "grep -n 'func Add' *.go",
    "cat calc.go",
    "cat calc_test.go",
    "sh test.sh",
    "grep -rn --include='*.go' 'Add(' . | sort",
    "sed -i 's/return a - b/return a * b/' calc.go",
    "sh test.sh",
    "cat calc.go",
    "sed -i 's/return a \\* b/return a + b/' calc.go",
    "sh test.sh",
    "cat cmd/calc/main.go",
    "sed -i 's/fmt.Println(1)/fmt.Println(1 + 2)/' cmd/calc/main.go",
    "grep -rn --include='*.go' Println . | sort",
    "sed -i 's|// Add adds.|// Add returns a + b.|' calc.go",
    "sh test.sh",
    "cat calc.go",
    "git diff --stat",
]
FINAL = "Fixed Add (it subtracted); the test passes."
FINAL_SIDE = "Scripted task"


def load_server():
    path = os.environ.get("SERVER_PY") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "bench", "server.py")
    spec = importlib.util.spec_from_file_location("mockserver", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


srv = load_server()
_local = threading.local()


def count_tool_results(body):
    """Tool results anywhere in the conversation, for every wire format."""
    n = 0
    for m in body.get("messages") or []:  # Chat Completions, Anthropic
        if m.get("role") == "tool":
            n += 1
        elif isinstance(m.get("content"), list):
            n += sum(1 for c in m["content"] if isinstance(c, dict) and c.get("type") == "tool_result")
    inp = body.get("input")  # Responses
    if isinstance(inp, list):
        n += sum(1 for it in inp if isinstance(it, dict) and it.get("type") in (
            "function_call_output", "custom_tool_call_output", "local_shell_call_output"))
    for c in body.get("contents") or []:  # Gemini
        n += sum(1 for p in c.get("parts") or [] if "functionResponse" in p)
    return n


def with_command(choice, cmd):
    """server.py's tool call with its default command replaced by cmd."""
    name, args, kind = choice
    default = srv._cfg["shell_command"]
    out = {}
    for k, v in args.items():
        if v == default:
            v = cmd
        elif v == ["bash", "-lc", default]:
            v = ["bash", "-lc", cmd]
        out[k] = v
    return name, out, kind


def decide(scenario, info):
    body = getattr(_local, "body", {}) or {}
    n = count_tool_results(body)
    _local.step = n
    if not info["tools"]:
        return "text", FINAL_SIDE
    if n < len(STEPS):
        choice = srv.pick_tool(info["tools"], "tool")
        if choice:
            return "tool", with_command(choice, STEPS[n])
    return "text", FINAL


class Handler(srv.Handler):
    def _read_body(self):
        raw = super()._read_body()
        try:
            _local.body = json.loads(raw or b"{}")
        except ValueError:
            _local.body = {}
        if not isinstance(_local.body, dict):
            _local.body = {}
        _local.step = None
        return raw

    def _log(self, rec):
        if rec.get("method") == "POST":
            rec["step"] = getattr(_local, "step", None)
            rec["tool_results"] = count_tool_results(getattr(_local, "body", {}) or {})
        return super()._log(rec)


srv.decide = decide


def main():
    s = ThreadingHTTPServer((srv.HOST, srv.PORT), Handler)
    s.daemon_threads = True
    sys.stderr.write("twentystep mock on http://%s:%d log=%s\n" % (srv.HOST, srv.PORT, srv.LOG_PATH))
    sys.stderr.flush()
    s.serve_forever()


if __name__ == "__main__":
    main()
