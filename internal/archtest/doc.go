// Package archtest holds tests of the module's shape, run with every
// `go test ./...`: the size limits of files, functions and interfaces,
// cyclomatic complexity, and the import rules between packages (front ends
// reach the engine only through internal/app; agent, permission and the
// tool core stay leaves), and that the documents point only to what the
// repository holds. It has no code of its own.
package archtest
