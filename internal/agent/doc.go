// Package agent is aidex's engine: the loop that sends a session to the
// model, runs the tool calls it answers with under the permission policy,
// and repeats until the model answers without calls. It imports only
// internal/llm (and internal/llm/textcall) and the leaf internal/kind;
// tools, the policy, approvals and persistence come in through the small
// interfaces [Tools], [Policy], [Approver], [Asker] and [Store], which
// internal/app implements.
//
// # Terms
//
// A turn is one model response (and the tool calls it asked for):
// Config.MaxTurns, DoneInfo.Turns, UsageInfo.Turn, the max_tool_turns key
// and --max-turns all count model responses. An exchange is a user prompt
// and everything that answered it; compaction keeps the latest exchanges
// verbatim. A run is one call of [Engine.Run]: one prompt, as many turns
// as it takes.
//
// # Event order
//
// A run emits, through the emit func it is given: session first; then per
// turn waiting (the request was sent: provider, model and the request's
// estimated input tokens; a local model may read them for minutes, so
// front ends show that they wait until the next event), the text and
// reasoning deltas, usage (then budget when it passed 80% of a limit of
// Config.Budget, or used one up), and for each tool call in the response's order
// tool_call, an approval request and its decision when the policy asks
// (for ask_user: interaction with the questions, then with the answer), and tool_result (read-only calls run in parallel, so
// their results may come in any order, but the tool message that goes
// back to the model keeps the calls' order); todos when the model changes
// its plan; notice when a fallback model takes over after the model
// failed (Config.Fallbacks: the request is sent again to it, a new
// waiting first); error for a failure (Fatal when it ends the run); done last,
// always, with the stop reason. Headless stream-json prints exactly these
// events; the web UI sends them as SSE.
//
// # Decisions
//
// For each call, [Tools.Prepare] validates it (a problem goes back to the
// model as a validation result), then [Policy.Check] decides: allow runs
// it, deny answers the model with the reason and the rule, ask puts an
// [ApprovalInfo] to the [Approver] (a front end answers it; with no
// Approver, as in headless runs and Ralph, ask is a denial). Engine-owned
// tools ([EngineTool]: todo_write, ask_user when there is an [Asker], Ralph's complete_task) change only the
// session or the run and skip the policy.
//
// # What ends a run
//
// The model answering without tool calls (stop reason done; in agent mode,
// Config.AgentMode, only at the last turn: before it the run goes on with
// "continue"), a done marker in the text (after the calls of the same
// answer ran), Config.MaxTurns reached, the same call three times in a row
// (loop), with Harness.FailureLoops the same failing command or edit a
// fourth time (loop; the third failure's result carries a nudge), the
// context cancelled (the partial answer is kept), a model
// request that failed after its retries, a store that cannot save, or an
// infrastructure failure of a tool ([Tools.Run] returning an error: no
// workspace or checkpoint store, a panic), or a budget used up ([Budget]:
// the step's tool calls finish, the run stops before the next request
// with stop reason budget). Problems the model can fix are
// tool results, never the end of the run. Every message is saved through
// the [Store] as it completes, so whatever ends a run loses nothing; calls
// left unanswered by a killed process are answered when the session is
// resumed.
//
// # Harness mechanisms
//
// Config.Harness ([Harness]) holds the mechanisms `aidex eval` measures on
// and off; its zero value is the engine's behaviour without them. Verify
// before finishing runs a check before a final answer of a run that
// changed files is accepted (notice events of kind verify; a failed
// check goes back to the model once; DoneInfo.Verified); failure loops
// nudge, then stop (loop); the planning nudge, failure nudges and time
// notes ride on the newest message of a request only, so the system
// prompt and earlier messages stay byte-identical; ParallelReads bounds
// a read-only batch. Every DoneInfo records the settings
// (DoneInfo.Harness).
package agent
