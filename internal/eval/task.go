// Package eval measures models, agents and harness settings on task
// suites (`aidex eval`): tasks in the Terminal-Bench 2 (Harbor) folder
// layout, attempts in throw-away workspaces, verifiers whose exit status
// decides, and reports of pass rates, cost, tokens and time.
//
// A task is a folder:
//
//	instruction.md          what the agent is asked to do
//	task.toml               [metadata] id, tags; [agent] timeout_sec;
//	                        [verifier] timeout_sec; [environment]
//	environment/            the starting files (a Dockerfile, setup.sh)
//	tests/test.sh           the verifier: exit status 0 passes
//	solution/solve.sh       a reference solution
//
// The format is Harbor's (github.com/laude-institute/harbor, task.toml
// version 1.0). aidex runs a task without a container when its
// environment is the workspace itself: environment/'s files, minus a
// Dockerfile, plus an optional environment/setup.sh run in the
// workspace. A task whose Dockerfile is required ([environment]
// needs_container = true, or a Dockerfile and nothing else) is skipped
// ("needs a container"). Two aidex keys of [environment] make a task of
// a repository's history (aidex eval mine): git_repo (a repository's
// path) and git_commit (the commit the workspace starts at); a third,
// hide, lists repository paths left out of the workspace (the tests the
// verifier puts back).
package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Default time limits of a task whose task.toml sets none.
const (
	DefaultAgentTimeout    = 10 * time.Minute
	DefaultVerifierTimeout = 5 * time.Minute
)

// Task is one task of a suite.
type Task struct {
	// ID is [metadata] id, or the folder's name.
	ID string `json:"id"`
	// Dir is the task's folder (absolute).
	Dir string `json:"dir"`
	// Instruction is instruction.md's text.
	Instruction string `json:"-"`
	// Tags are [metadata] tags.
	Tags []string `json:"tags,omitempty"`
	// AgentTimeout and VerifierTimeout are [agent] and [verifier]
	// timeout_sec.
	AgentTimeout    time.Duration `json:"agent_timeout"`
	VerifierTimeout time.Duration `json:"verifier_timeout"`
	// Skip is why the task cannot run here ("" when it can).
	Skip string `json:"skip,omitempty"`
	// GitRepo and GitCommit start the workspace at a commit of a
	// repository (mined tasks); both "" for a files-only environment.
	GitRepo   string `json:"git_repo,omitempty"`
	GitCommit string `json:"git_commit,omitempty"`
	// Hide are repository paths (slash-separated) left out of the
	// workspace: the tests a mined task's verifier puts back.
	Hide []string `json:"hide,omitempty"`
	// Network: the task asks for network tools (web_fetch, MCP).
	Network bool `json:"network,omitempty"`
}

// taskFile is task.toml as aidex reads it; unknown keys are Harbor's
// (docker_image, cpus, memory, ...) and are ignored.
type taskFile struct {
	Metadata struct {
		ID   string   `toml:"id"`
		Tags []string `toml:"tags"`
	} `toml:"metadata"`
	Agent struct {
		TimeoutSec float64 `toml:"timeout_sec"`
	} `toml:"agent"`
	Verifier struct {
		TimeoutSec float64 `toml:"timeout_sec"`
	} `toml:"verifier"`
	Environment struct {
		NeedsContainer bool     `toml:"needs_container"`
		GitRepo        string   `toml:"git_repo"`
		GitCommit      string   `toml:"git_commit"`
		Hide           []string `toml:"hide"`
		Network        bool     `toml:"network"`
	} `toml:"environment"`
}

// ErrNotTask is wrapped by LoadTask for a folder without instruction.md.
var ErrNotTask = errors.New("not a task folder (no instruction.md)")

// LoadTask reads the task in dir. Errors: [ErrNotTask]; an unreadable
// file; a task.toml that is not TOML (naming the file); a task without
// tests/test.sh.
func LoadTask(dir string) (Task, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Task{}, err
	}
	instr, err := os.ReadFile(filepath.Join(dir, "instruction.md"))
	if errors.Is(err, fs.ErrNotExist) {
		return Task{}, fmt.Errorf("%s: %w", dir, ErrNotTask)
	}
	if err != nil {
		return Task{}, err
	}
	var tf taskFile
	if data, err := os.ReadFile(filepath.Join(dir, "task.toml")); err == nil {
		if err := toml.Unmarshal(data, &tf); err != nil {
			return Task{}, fmt.Errorf("%s: %w", filepath.Join(dir, "task.toml"), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Task{}, err
	}
	if _, err := os.Stat(filepath.Join(dir, "tests", "test.sh")); err != nil {
		return Task{}, fmt.Errorf("%s: no tests/test.sh (the verifier whose exit status decides)", dir)
	}
	t := Task{ID: tf.Metadata.ID, Dir: dir, Instruction: strings.TrimSpace(string(instr)), Tags: tf.Metadata.Tags,
		AgentTimeout: seconds(tf.Agent.TimeoutSec, DefaultAgentTimeout), VerifierTimeout: seconds(tf.Verifier.TimeoutSec, DefaultVerifierTimeout),
		GitRepo: tf.Environment.GitRepo, GitCommit: tf.Environment.GitCommit, Hide: tf.Environment.Hide, Network: tf.Environment.Network}
	if t.ID == "" {
		t.ID = filepath.Base(dir)
	}
	t.Skip = needsContainer(dir, tf.Environment.NeedsContainer, t.GitRepo != "")
	return t, nil
}

// seconds converts a timeout_sec value (0: def).
func seconds(s float64, def time.Duration) time.Duration {
	if s <= 0 {
		return def
	}
	return time.Duration(s * float64(time.Second))
}

// needsContainer returns why a task cannot run without a container: it
// says so, or its environment is a Dockerfile and nothing else (the
// files come from the image).
func needsContainer(dir string, says, gitRepo bool) string {
	if says {
		return "needs a container ([environment] needs_container = true)"
	}
	if gitRepo {
		return ""
	}
	entries, err := os.ReadDir(filepath.Join(dir, "environment"))
	if err != nil {
		return ""
	}
	docker := slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == "Dockerfile" })
	if docker && len(entries) == 1 {
		return "needs a container (environment/ holds only a Dockerfile)"
	}
	return ""
}

// LoadSuite reads the tasks of suite: a task folder, or a folder whose
// subfolders are tasks (others are ignored), in name order. Errors: no
// task found; a task that cannot be read (naming it).
func LoadSuite(suite string) ([]Task, error) {
	if t, err := LoadTask(suite); err == nil {
		return []Task{t}, nil
	} else if !errors.Is(err, ErrNotTask) {
		return nil, err
	}
	entries, err := os.ReadDir(suite)
	if err != nil {
		return nil, fmt.Errorf("read the suite: %w", err)
	}
	var tasks []Task
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t, err := LoadTask(filepath.Join(suite, e.Name()))
		if errors.Is(err, ErrNotTask) {
			continue
		}
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%s holds no task (a task is a folder with instruction.md and tests/test.sh)", suite)
	}
	return tasks, nil
}
