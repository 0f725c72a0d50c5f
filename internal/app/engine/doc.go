// Package engine is the room of internal/app that builds and derives
// engines and their adapters (hooks, policy, tools, sandbox, budget,
// checkpoints, MCP; issue 34). It imports nothing of app: app's engine
// builder (internal/app/engine.go, Runtime.Engine) calls it. Today it holds
// the hooks adapter's transcript: a session's conversation written in
// Claude Code's transcript format for hook scripts (ClaudeTranscript) and
// the last answer a Stop hook is given (LastAssistantText); the rest of
// the building moves here piece by piece.
package engine
