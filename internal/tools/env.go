package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"
)

// Resolver confines the paths a model gives to the workspace. It is
// satisfied by *permission.Workspace.
type Resolver interface {
	// Root returns the absolute workspace root (symlinks resolved).
	Root() string
	// Resolve returns the absolute, symlink-resolved path for p (relative
	// paths are joined to Root), or an error when p is outside the
	// workspace, protected or malformed. Tools report such errors with
	// CategorySecurity.
	Resolve(p string) (string, error)
	// Rel returns abs relative to Root for display (slash-separated), or
	// abs unchanged when it is outside.
	Rel(abs string) string
}

// FileStamp identifies the content of a file at one moment: its size in
// bytes, modification time and SHA-256 of the content.
type FileStamp struct {
	Size    int64
	ModTime time.Time
	SHA256  [sha256.Size]byte
}

// StampOf returns the stamp of content with modification time mtime.
func StampOf(content []byte, mtime time.Time) FileStamp {
	return FileStamp{Size: int64(len(content)), ModTime: mtime, SHA256: sha256.Sum256(content)}
}

// SameContent reports whether s and o describe the same content (size and
// SHA-256; the modification time alone may change without a content change).
func (s FileStamp) SameContent(o FileStamp) bool {
	return s.Size == o.Size && bytes.Equal(s.SHA256[:], o.SHA256[:])
}

// ReadTracker remembers which files the model has read in a session, so a
// file is never changed on the strength of a stale or missing read. Paths
// are absolute, as returned by Resolver.Resolve. Implementations must be
// safe for concurrent use; the session store implements it persistently.
type ReadTracker interface {
	// RecordRead stores the stamp of path as last seen by the model (after
	// a read tool, or after a write tool changed it).
	RecordRead(ctx context.Context, path string, s FileStamp) error
	// LastRead returns the stamp recorded for path; ok is false when the
	// file was never read in this session.
	LastRead(ctx context.Context, path string) (s FileStamp, ok bool, err error)
	// Forget drops the record for path (after it was deleted or moved).
	Forget(ctx context.Context, path string) error
}

// Checkpointer keeps the content of a file before a tool changes it, so
// /undo can restore it. Save is called before every change to a file
// (never for directories); old is nil and existed false when the change
// creates the file. A Save error aborts the change.
type Checkpointer interface {
	// Save keeps old, the content of path (absolute) before a change.
	Save(ctx context.Context, path string, old []byte, existed bool) error
}

// Env is what tools need from the session: the workspace, read tracking
// and checkpoints. One Env per session; it is safe for concurrent calls
// when its parts are.
type Env struct {
	// Workspace confines every path parameter. Required.
	Workspace Resolver
	// Reads tracks files read in this session. Required unless
	// SkipReadCheck is set.
	Reads ReadTracker
	// Checkpoints receives the old content before each change. Required
	// for tools that change files.
	Checkpoints Checkpointer
	// ImageSide is the longest side in pixels of the images read tools
	// return (larger ones are scaled down; 0: the loader's default, 1568).
	ImageSide int
	// SkipReadCheck drops the "file must have been read first" rule, for
	// `aidex tool` run by a human.
	SkipReadCheck bool
	// DryRun makes file-changing tools compute their change and diff
	// without writing anything (--agent-writes dry-run). Tools that change
	// files outside Env.Commit (delete, move, copy, create_directory) must not
	// be run in a dry run; the engine's wiring refuses them.
	DryRun bool
	// EnsureTrailingNewline ends the text every change writes with a
	// newline ([tools] ensure_trailing_newline).
	EnsureTrailingNewline bool
	// LineHashes shows text lines as LINE#HASH|text in the file tools'
	// output (the hashline edit format; edit_lines takes the anchors).
	LineHashes bool
	// Outputs keeps the whole output of command results cut to head and
	// tail, for read_output ([harness] output_handles); nil keeps none.
	Outputs *OutputStore
	// Grep is the search backend for the grep tool; nil means
	// search.DefaultBackend() (ripgrep when on PATH, else the Go walker).
	Grep GrepBackend
	// EnvPolicy is the configured part of the credential scrubbing of
	// every process a tool starts (commands, git, ripgrep; see
	// proc.ChildEnviron). The zero value scrubs by the built-in rules
	// only.
	EnvPolicy EnvPolicy
	// ExtraEnv, when set, returns variables ("NAME=value") set for the
	// commands the model starts over the process's environment: what the
	// session's SessionStart and Setup hooks exported through
	// CLAUDE_ENV_FILE. The credential scrubbing (EnvPolicy) applies to
	// them as to the rest.
	ExtraEnv func() []string
	// Confiner runs the commands the model starts (run_command,
	// run_python, run_background_process) in the OS sandbox; nil runs
	// them unconfined (sandbox off, or a rerun the user approved).
	Confiner Confiner
	// Editor, when set, is an editor's file access (ACP's
	// fs/read_text_file and fs/write_text_file): text files are read
	// through it (unsaved buffers are seen) and changes written through it
	// (they appear in the editor). Paths reach it only after the workspace
	// confinement and the policy judged them. nil: the disk.
	Editor Editor
}

// Editor reads and writes text files through an editor. Paths are
// absolute, as returned by Resolver.Resolve. ok is false when the editor
// does not handle the call (the tool then uses the disk); an error is a
// failure of the editor's (the tool fails with it). Implementations bound
// their calls by the run's context and must be safe for concurrent use.
type Editor interface {
	ReadText(ctx context.Context, abs string) (content []byte, ok bool, err error)
	WriteText(ctx context.Context, abs string, content []byte) (ok bool, err error)
}

// Confiner runs a command in the OS sandbox. app adapts
// *sandbox.Sandbox to it; the tool core does not import the sandbox.
// Implementations must be safe for concurrent use.
type Confiner interface {
	// Confine rewrites cmd (Path, Args, SysProcAttr, ExtraFiles) so that
	// it runs confined. It is called after cmd's Dir, Env and process
	// group are set, just before Start. network turns the network on for
	// this one command. An error means the command must not run.
	Confine(cmd *exec.Cmd, network bool) error
	// Explain reads the output of a confined command that failed and
	// returns one line saying that the sandbox stopped it and how to
	// allow it, or "" when the sandbox was not the cause.
	Explain(output string) string
}

// Auditor is implemented by a Confiner that checks what a confined
// command left behind: files that would run later outside the sandbox
// (git config and hooks, project config), which it reverts.
type Auditor interface {
	// Begin is called before a confined command starts. The function it
	// returns is called once, after the command and every process it
	// started ended; it reverts what the command changed that it must
	// not have and returns one line per revert (nil: nothing).
	Begin() (end func() []string)
}

// EnvPolicy is the configured part of the credential scrubbing of the
// processes tools start (proc.ChildEnviron applies it): it belongs to a
// runtime's configuration, so two runtimes in one process may scrub
// differently.
type EnvPolicy struct {
	// Secret names credential variables whatever they are called: each
	// configured provider's api_key_env and the catalog's key variables.
	Secret []string
	// Allow names variables passed to commands although they look like
	// credentials (config command_env_allow: the user's choice, never the
	// model's). Allow beats Secret and every rule.
	Allow []string
}

// NewEnv returns an Env for ws with in-memory read tracking and
// checkpoints (MemReadTracker, MemCheckpointer).
func NewEnv(ws Resolver) *Env {
	return &Env{Workspace: ws, Reads: NewMemReadTracker(), Checkpoints: &MemCheckpointer{}}
}

// MemReadTracker is an in-memory ReadTracker, safe for concurrent use.
type MemReadTracker struct {
	mu sync.Mutex
	m  map[string]FileStamp
}

// NewMemReadTracker returns an empty MemReadTracker.
func NewMemReadTracker() *MemReadTracker { return &MemReadTracker{m: map[string]FileStamp{}} }

// RecordRead implements ReadTracker; it never fails.
func (t *MemReadTracker) RecordRead(_ context.Context, path string, s FileStamp) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m[path] = s
	return nil
}

// LastRead implements ReadTracker; it never fails.
func (t *MemReadTracker) LastRead(_ context.Context, path string) (FileStamp, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.m[path]
	return s, ok, nil
}

// Forget implements ReadTracker; it never fails.
func (t *MemReadTracker) Forget(_ context.Context, path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, path)
	return nil
}

// Checkpoint is one saved file state.
type Checkpoint struct {
	Path    string // absolute path
	Old     []byte // content before the change (nil when !Existed)
	Existed bool   // false when the change created the file
}

// MemCheckpointer is an in-memory Checkpointer, safe for concurrent use.
// The zero value is ready to use.
type MemCheckpointer struct {
	mu      sync.Mutex
	entries []Checkpoint
}

// Save implements Checkpointer; it never fails.
func (c *MemCheckpointer) Save(_ context.Context, path string, old []byte, existed bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, Checkpoint{Path: path, Old: bytes.Clone(old), Existed: existed})
	return nil
}

// Entries returns a copy of the checkpoints saved so far, oldest first.
func (c *MemCheckpointer) Entries() []Checkpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Checkpoint(nil), c.entries...)
}

// Resolve confines the path p given for parameter param to the workspace
// and returns it absolute and symlink-resolved. A refusal is a ready
// Result of CategorySecurity ("<param> refused: ..."); a path in shell
// syntax ("$HOME/x", "~/x") that does not exist literally is one of
// CategoryValidation (see [Env.CheckShellSyntax]); an Env without a
// workspace gives CategoryInternal.
func (env *Env) Resolve(param, p string) (string, *Result) {
	if env == nil || env.Workspace == nil {
		r := Failf(CategoryInternal, "internal error: no workspace configured for file tools")
		return "", &r
	}
	abs, err := env.Workspace.Resolve(p)
	if r := env.shellSyntax(param, p, abs, err == nil); r != nil {
		return "", r
	}
	if err != nil {
		r := Failf(CategorySecurity, "%s refused: %v", param, err)
		return "", &r
	}
	return abs, nil
}

// Rel returns abs for display: relative to the workspace root
// (slash-separated) when inside it, else unchanged.
func (env *Env) Rel(abs string) string { return env.Workspace.Rel(abs) }

var errNoTracker = errors.New("internal error: no read tracker configured")

// MarkRead records that the model has now seen content of abs (last
// modified at mtime). Without a ReadTracker it fails, unless
// SkipReadCheck is set; the tracker's error is wrapped.
func (env *Env) MarkRead(ctx context.Context, abs string, content []byte, mtime time.Time) error {
	if env.Reads == nil {
		if env.SkipReadCheck {
			return nil
		}
		return errNoTracker
	}
	if err := env.Reads.RecordRead(ctx, abs, StampOf(content, mtime)); err != nil {
		return fmt.Errorf("record read of %s: %w", abs, err)
	}
	return nil
}

// CheckFresh enforces "read before write": the existing file abs with
// content cur must have been read in this session and not changed since.
// A violation is a ready Result of CategoryValidation telling the model to
// read the file; tracker failures are CategoryExecution. SkipReadCheck
// turns the check off (nil).
func (env *Env) CheckFresh(ctx context.Context, abs string, cur []byte) *Result {
	if env.SkipReadCheck {
		return nil
	}
	rel := env.Rel(abs)
	if env.Reads == nil {
		r := Failf(CategoryInternal, "%v", errNoTracker)
		return &r
	}
	s, ok, err := env.Reads.LastRead(ctx, abs)
	if err != nil {
		r := Failf(CategoryExecution, "cannot check whether %s was read: %v", rel, err)
		return &r
	}
	if !ok {
		r := Failf(CategoryValidation, "%s has not been read in this session: call read_file on it first, then retry", rel)
		return &r
	}
	if !s.SameContent(StampOf(cur, time.Time{})) {
		r := Failf(CategoryValidation, "%s changed on disk since you last read it (now %d bytes, was %d): "+
			"read it again with read_file and redo the change on the current content", rel, len(cur), s.Size)
		return &r
	}
	return nil
}

// Checkpoint saves old, the content of abs before a change (nil and
// existed false when the change creates abs), so /undo can restore it.
// Without a Checkpointer, or when it fails, the result is a ready Result
// of CategoryExecution and the change must not happen.
func (env *Env) Checkpoint(ctx context.Context, abs string, old []byte, existed bool) *Result {
	if env.Checkpoints == nil {
		r := Failf(CategoryInternal, "internal error: no checkpoint store configured; refusing to change files without one")
		return &r
	}
	if err := env.Checkpoints.Save(ctx, abs, old, existed); err != nil {
		r := Failf(CategoryExecution, "could not save a checkpoint of %s (nothing was changed): %v", env.Rel(abs), err)
		return &r
	}
	return nil
}

// Forget drops the read record of abs after the file was deleted (best
// effort: a stale record only forces a re-read).
func (env *Env) Forget(ctx context.Context, abs string) {
	if env.Reads != nil {
		_ = env.Reads.Forget(ctx, abs) // best effort: a stale record only forces a re-read
	}
}

// MoveStamp carries the read record of src to dst after a move (the
// content did not change, so a fresh read of src is a fresh read of dst);
// best effort.
func (env *Env) MoveStamp(ctx context.Context, src, dst string) {
	if env.Reads == nil {
		return
	}
	if s, ok, err := env.Reads.LastRead(ctx, src); err == nil && ok {
		_ = env.Reads.RecordRead(ctx, dst, s) // best effort: a missing record only forces a re-read
	}
	_ = env.Reads.Forget(ctx, src)
}
