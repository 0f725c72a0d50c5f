#!/bin/sh
# Re-created from the contract of Anthropic's ralph-wiggum plugin
# (plugins/ralph-wiggum/hooks/stop-hook.sh; the original is not copied):
# while .claude/ralph-loop.local.md exists, block the Stop with the loop's
# prompt as the reason, so the session goes on; stop when the last
# assistant text (read from transcript_path) holds
# <promise>COMPLETION_PROMISE</promise> or max_iterations is reached.
set -eu
input=$(cat)
state=.claude/ralph-loop.local.md
[ -f "$state" ] || exit 0
field() { sed -n "/^---\$/,/^---\$/s/^$1: *//p" "$state" | head -n 1; }
iteration=$(field iteration)
max=$(field max_iterations)
promise=$(field completion_promise | sed 's/^"\(.*\)"$/\1/')
case "$iteration$max" in *[!0-9]*|'') echo "ralph loop: the state file is corrupt; stopping" >&2; rm -f "$state"; exit 0 ;; esac
if [ "$max" -gt 0 ] && [ "$iteration" -ge "$max" ]; then
  echo "Ralph loop: max iterations ($max) reached." >&2
  rm -f "$state"
  exit 0
fi
transcript=$(printf '%s' "$input" | jq -r '.transcript_path')
last=$(grep '"role":"assistant"' "$transcript" | tail -n 1 |
  jq -r '.message.content | map(select(.type == "text")) | map(.text) | join("\n")')
if [ "$promise" != "null" ] && [ -n "$promise" ]; then
  said=$(printf '%s' "$last" | tr '\n' ' ' | sed -n 's/.*<promise>\(.*\)<\/promise>.*/\1/p')
  if [ "$said" = "$promise" ]; then
    echo "Ralph loop: <promise>$promise</promise> detected." >&2
    rm -f "$state"
    exit 0
  fi
fi
next=$((iteration + 1))
sed "s/^iteration: .*/iteration: $next/" "$state" > "$state.tmp" && mv "$state.tmp" "$state"
prompt=$(awk 'n >= 2 { print; next } /^---$/ { n++ }' "$state" | sed '/./,$!d')
jq -n --arg prompt "$prompt" --arg msg "Ralph iteration $next" '{"decision": "block", "reason": $prompt, "systemMessage": $msg}'
