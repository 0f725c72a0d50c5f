#!/bin/sh
# Re-created from the contract of Anthropic's ralph-wiggum plugin
# (plugins/ralph-wiggum/scripts/setup-ralph-loop.sh; the original is not
# copied): writes the loop's state file, .claude/ralph-loop.local.md, with
# YAML front matter (active, iteration, max_iterations,
# completion_promise) and the prompt as its body.
#   setup-ralph-loop.sh PROMPT... [--max-iterations N] [--completion-promise TEXT]
set -eu
max=0
promise=null
prompt=""
while [ $# -gt 0 ]; do
  case "$1" in
    --max-iterations) max="$2"; shift 2 ;;
    --completion-promise) promise="\"$2\""; shift 2 ;;
    *) prompt="${prompt:+$prompt }$1"; shift ;;
  esac
done
[ -n "$prompt" ] || { echo "setup-ralph-loop: give the prompt" >&2; exit 1; }
case "$max" in *[!0-9]*|'') echo "setup-ralph-loop: --max-iterations takes a whole number" >&2; exit 1 ;; esac
mkdir -p .claude
cat > .claude/ralph-loop.local.md <<STATE
---
active: true
iteration: 1
max_iterations: $max
completion_promise: $promise
---

$prompt
STATE
echo "Ralph loop activated (iteration 1, max $max)."
