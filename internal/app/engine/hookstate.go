package engine

import (
	"os"
	"strings"
	"sync"
)

// HookState is what the hooks of one scope leave for later: the
// variables their CLAUDE_ENV_FILE exported (SessionStart's for a live
// session, Setup's for the service; a session's sit over its service's)
// and the temp folder of the transcripts given to sandboxed hooks
// (removed by close). Safe for concurrent use; a nil *HookState holds
// nothing.
type HookState struct {
	// Base is the scope's outer scope (a session's service; nil: none).
	Base *HookState

	mu      sync.Mutex
	env     []string    // "NAME=value", a later export replacing in place
	tmpDir  string      // "": not made yet
	tmpInfo os.FileInfo // tmpDir as made, to notice a replaced folder
}

// AddEnv records vars ("NAME=value") a hook exported.
func (h *HookState) AddEnv(vars []string) {
	if h == nil || len(vars) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.env = mergeEnv(h.env, vars)
}

// Environ returns the variables for the scope's commands: the base's,
// then its own ("NAME=value"; nil: none). The commands' environment
// filter (credentials, command_env_allow) applies to them as to the rest.
func (h *HookState) Environ() []string {
	if h == nil {
		return nil
	}
	out := h.Base.Environ()
	h.mu.Lock()
	defer h.mu.Unlock()
	return mergeEnv(out, h.env)
}

// mergeEnv sets vars over env: a name already there gets the new value
// in place, a new one is appended.
func mergeEnv(env, vars []string) []string {
	out := append([]string(nil), env...)
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		replaced := false
		for i, old := range out {
			if n, _, _ := strings.Cut(old, "="); n == name {
				out[i], replaced = kv, true
				break
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return out
}

// transcripts returns the folder of the transcripts given to sandboxed
// hooks. The data folder is hidden from sandboxed commands, so it is a
// folder of the temp folder (a fresh name no command could have
// prepared), kept while the scope lives so a transcript_path stays
// readable after its hook, as Claude Code's does. A folder a command
// replaced (a symlink, another folder) is not written through: a fresh
// one is made. Errors: the temp folder's.
func (h *HookState) transcripts() (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tmpDir != "" {
		if fi, err := os.Lstat(h.tmpDir); err == nil && fi.IsDir() && os.SameFile(fi, h.tmpInfo) {
			return h.tmpDir, nil
		}
	}
	dir, err := os.MkdirTemp("", "aidex-transcripts-")
	if err != nil {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	h.tmpDir, h.tmpInfo = dir, fi
	return dir, nil
}

// Close removes the transcripts' temp folder (when it is still the one
// made: a folder a command put in its place is left alone).
func (h *HookState) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tmpDir == "" {
		return
	}
	if fi, err := os.Lstat(h.tmpDir); err == nil && fi.IsDir() && os.SameFile(fi, h.tmpInfo) {
		_ = os.RemoveAll(h.tmpDir)
	}
	h.tmpDir, h.tmpInfo = "", nil
}
