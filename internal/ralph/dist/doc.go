// Package dist runs Ralph with several workers over NATS JetStream: a
// [Coordinator] that owns the task list and puts runnable tasks on a
// work-queue stream, and [Worker]s that take one task at a time (pull
// consumer, explicit ack, ack wait with in-progress heartbeats, at most
// MaxDeliver deliveries), work it in a git worktree on branch
// ralph/<task-id> and report on a results stream.
//
// Subjects (see docs/ralph-distributed.md):
//
//	ralph.task.<task-id>             work queue (stream RALPH_TASKS, consumer ralph-workers)
//	ralph.result.<run-id>.<task-id>  starts and outcomes (stream RALPH_RESULTS)
//	ralph.worker.<worker-id>         worker heartbeats (core NATS)
//	ralph.status                     the coordinator answers status requests
//	KV bucket RALPH_CONTROL key run  running | paused | stopped
//
// A worker trusts nothing it receives: messages are size-capped and
// schema-checked, its permission mode, sandbox, turn limits and allowed
// remotes come from its own flags and configuration, and a task's verify
// command runs only when the worker allows it.
package dist
