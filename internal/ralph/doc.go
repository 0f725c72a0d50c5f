// Package ralph is aidex's autonomous task loop ("Ralph"), its task list
// and planning.
//
// The task list is <workspace>/ralph_tasks.json ([Store]): tasks modelled
// on ralph-tui's schema (id US-001/T-001, title, description, acceptance
// criteria, priority P0-P3, type, status, attempts, result, session id,
// dependencies), written atomically under a file lock, keeping fields it
// does not know.
//
// A [Service] drives one workspace for every front end (CLI, TUI, web):
// task-list operations, Run (pick the next task, run it in a new session
// with headless rules and the complete_task tool, verify, record, repeat),
// run control across processes (Stop, Pause, Resume, State), Plan (the
// model proposes tasks in plan permission mode) and Implement (one task in
// a caller's session). It never prints: it reports through [Event]s.
package ralph
