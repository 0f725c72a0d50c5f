// Package engine is the room of internal/app that holds the adapters an
// engine is built with (issue 34). It imports nothing of app: app's
// engine builder (internal/app/engine.go, Runtime.Engine, the one place
// that writes an agent.Engine literal) calls it. It holds:
//
//   - the permission policy as the engine's agent.Policy (Policy), with
//     the covered-tool check (CheckCovered) and the mode-only verdict
//     (ModeOnly) that aidex tool and /api/tool share;
//   - an engine's MCP tools (MCPTools: registered in the engine's
//     registry, deferred behind tool_search past mcp_tool_budget);
//   - the turn snapshots of checkpoints (TurnHook, NoFileCheckpoints);
//   - the cost governor from [budget] (Budget);
//   - a subagent's approvals and events passed to its parent, labelled
//     (LabelledApprover, ChildEmit);
//   - the hooks adapter (Hooks: the hook runner as the engine's
//     agent.Hooks and the session's own points, SessionStart,
//     UserPromptSubmit, SessionEnd), the variables and temp folder the
//     hooks of a scope leave (HookState), and the transcript hook scripts
//     are given, in Claude Code's format (ClaudeTranscript,
//     LastAssistantText).
//
// What needs the runtime's configuration, content or live session state
// (the registry, the system prompt, which hooks run, the task tool)
// stays in app, in the engineRoom of rooms.go.
package engine
