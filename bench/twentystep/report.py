#!/usr/bin/env python3
"""Report of bench/twentystep/run.sh: the bytes each agent sent over the 20-step task.

usage: python3 report.py OUT    (OUT holds requests.jsonl, runs.jsonl, versions.txt)
Prints Markdown: one summary table (medians over runs; min–max in brackets when runs
differ), per agent the make-up of its first request, and per run every POST request's
body bytes in order. Writes OUT/report.json with the same figures.
"""
import json
import statistics
import sys

ROWS = [
    ("first", "first request, bytes"),
    ("first_tools", "first request offering tools (step 1), bytes"),
    ("last", "last request (the answer's), bytes"),
    ("growth", "growth per step, bytes"),
    ("total", "all requests, bytes"),
    ("tokens", "estimated tokens (bytes / 4)"),
    ("n", "requests"),
    ("n_side", "… of which side requests (no tools)"),
    ("ok", "runs that did the task"),
    ("wall", "wall time per run, s (not a benchmark)"),
]


def fmt(xs, key):
    if key == "ok":
        return f"{sum(xs)} / {len(xs)}"
    lo, hi, med = min(xs), max(xs), statistics.median(xs)
    f = "{:,.1f}" if key == "wall" else "{:,.0f}"
    s = f.format(med)
    return s if lo == hi else f"{s} ({f.format(lo)}–{f.format(hi)})"


def main():
    out = sys.argv[1]
    reqs = [json.loads(line) for line in open(f"{out}/requests.jsonl")]
    runs = [json.loads(line) for line in open(f"{out}/runs.jsonl")]
    agents = list(dict.fromkeys(r["agent"] for r in runs))
    summary = {}
    for a in agents:
        rows = []
        for r in (r for r in runs if r["agent"] == a):
            mine = [q for q in reqs if q.get("tag") == r["tag"] and q.get("method") == "POST"]
            loop = [q for q in mine if q.get("n_tools")]
            b = [q["body_bytes"] for q in mine]
            first_t = loop[0]["body_bytes"] if loop else 0
            last = loop[-1]["body_bytes"] if loop else 0
            rows.append(dict(
                tag=r["tag"], ok=int(r["exit"] == 0 and r["test_passes"] == 1 and r["answered"] == 1),
                wall=r["wall_s"], n=len(mine), n_side=len(mine) - len(loop),
                first=b[0] if b else 0, first_tools=first_t, last=last,
                growth=round((last - first_t) / (len(loop) - 1)) if len(loop) > 1 else 0,
                total=sum(b), tokens=sum(b) // 4,
                requests=[dict(bytes=q["body_bytes"], api=q.get("api"), step=q.get("step"),
                               tools=q.get("n_tools"), reply=q.get("reply")) for q in mine],
                first_request={k: loop[0].get(k) for k in (
                    "api", "n_tools", "tools_chars", "system_chars", "messages_chars", "tools")} if loop else {}))
        summary[a] = rows

    print("```\n" + open(f"{out}/versions.txt").read().strip() + "\n```\n")
    print("| | " + " | ".join(agents) + " |")
    print("|---|" + "---|" * len(agents))
    for key, label in ROWS:
        print(f"| {label} | " + " | ".join(fmt([x[key] for x in summary[a]], key) for a in agents) + " |")
    print()
    for a in agents:
        rows = summary[a]
        c = rows[0]["first_request"]
        if c:
            print(f"- {a}, first request offering tools ({c['api']}): {c['n_tools']} tools, "
                  f"{c['tools_chars']:,} chars of tool JSON; system {c['system_chars']:,} chars; "
                  f"messages {c['messages_chars']:,} chars. Tools: {', '.join(c['tools'])}.")
    print()
    for a in agents:
        rows = summary[a]
        same = len({tuple(q["bytes"] for q in r["requests"]) for r in rows}) == 1
        print(f"### {a}: bytes of each request" + (" (the same in every run)" if same else "") + "\n")
        for r in (rows[:1] if same else rows):
            print(f"- {r['tag'] if not same else a}: " + ", ".join(
                f"{q['bytes']:,}" + ("" if q["tools"] else f" [{q['api']}, no tools]") for q in r["requests"]))
        print()
    json.dump(summary, open(f"{out}/report.json", "w"), indent=1)


if __name__ == "__main__":
    main()
