// Package tui is aidex's interactive terminal UI (Bubble Tea v2). It runs
// inline by default: finished messages are printed into the terminal's own
// scrollback (so selection and copy work as in any program) and only the
// live part — the streaming answer's tail, running tool cards, approval
// prompts, pickers, the input and the status line — is redrawn. Fullscreen
// puts the same UI on the alternate screen. The mouse is never captured.
//
// /tasks opens Ralph's split view (the task list on the left, the
// selected task's detail and live transcript on the right; keys a add,
// e edit in $EDITOR, r run the loop, s stop, Esc back). It uses the
// alternate screen while open; chat output produced meanwhile reaches the
// scrollback when it closes. A loop started there keeps running after
// Esc (its task results are printed as they finish) and is interrupted
// when the UI quits (the current task goes back to pending).
//
// Engine events reach the UI through a queue that never blocks the engine
// (text deltas are merged); markdown is rendered with glamour on a short
// debounce (without the style's document colour, which paintDefault adds
// back in one pass: the same look at a third of the cost), and complete
// blocks are committed as they finish, so long answers cost linear time.
// On -c/-r the last messages of the conversation are shown while the rest
// loads (RecentMessages). Nothing ticks while idle.
//
// # Sub-models and message routing
//
// The top-level model (model.go) owns the session — the controller, and
// through its sides the run or job in progress and the Ralph loop — and
// routes every message to a sub-model, each a type with its own Update
// and View in its own file:
//
//   - inputModel (input.go): the prompt editor, its history, the
//     completion menu and folded pastes.
//   - streamModel (stream.go): the conversation's output — the answer and
//     reasoning being streamed, running tool cards, and finished output
//     printed to the scrollback or kept in the fullscreen transcript.
//   - approvalModel (approval.go): the approval prompt, a menu; its keys
//     answer the engine's question directly, behind a type-ahead guard
//     (approvalGuard, typingGap on the UI's clock, Options.Now): keys it
//     does not take are typing and go to the input box.
//   - statusModel (status.go): the status line's usage counters, plan
//     progress and note.
//   - tasksView (tasks.go): the Ralph split view (nil while closed).
//
// The overlays picker and keyPrompt (picker.go) follow the same pattern.
//
// The top-level model's own work is split by concern into sides, types
// over the model that it holds (the rule of at most 40 methods a type,
// internal/archtest): turn (turnCtl, session.go: what Enter sends, the
// run or job in progress, queued messages, the permission mode, /rewind,
// a parallel turn's choice), tasks (tasksCtl, ralph.go: the split view,
// the plan under review, the Ralph loop), setup (setupCtl, picker.go: the
// provider, model, API key and server pickers) and screen (screenCtl,
// view.go: drawing the frame). The model keeps Init, Update and View and
// the routing; a side calls another through the model (m.turn.send()).
//
// Routing: a window size goes to every sub-model; the engine's events
// (drained from the queue) go to the status line and the stream, an
// approval question to the approval prompt; the stream's own ticks and
// print acknowledgements go to the stream. A key press goes to the first
// of the approval prompt, the API key prompt, a picker, the plan review
// and the split view that is open, else to the chat: the top level keeps
// the chat's global keys (Esc, Shift+Tab, Ctrl+L, Ctrl+O, PgUp/PgDown)
// and passes the rest to the input. Ctrl+C is handled at the top.
//
// A sub-model never reaches into the session. What it needs done there —
// send the input (submitMsg), add, edit or run tasks, close the split
// view, use a picker's choice or an API key — it queues as a request
// message in its outbox; the top-level model takes the requests right
// after the sub-model's Update returns and handles them in the same step,
// like any other message. Jobs and runs report back with jobDoneMsg and
// queue items, whose follow-ups run on the UI goroutine.
package tui
