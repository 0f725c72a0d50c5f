package tools

import (
	"errors"
	"fmt"
)

// Category classifies a failed tool call so the engine, front ends and the
// model can react differently (e.g. a security refusal is never retried
// blindly).
type Category string

// The result categories.
const (
	// CategorySecurity: a path or command was refused by workspace
	// confinement or another safety rule.
	CategorySecurity Category = "security"
	// CategoryPermission: the user or the permission policy denied the call.
	CategoryPermission Category = "permission"
	// CategoryValidation: the arguments are malformed, of the wrong type,
	// unknown, or the call does not make sense (e.g. a no-op edit, an
	// ambiguous match, a file not read first).
	CategoryValidation Category = "validation"
	// CategoryNotFound: a file, directory or tool does not exist.
	CategoryNotFound Category = "not_found"
	// CategoryExecution: the call was valid but failed while running
	// (I/O error, command failed, checkpoint store unavailable).
	CategoryExecution Category = "execution"
	// CategoryInternal: an infrastructure failure (no workspace or
	// checkpoint store wired, a recovered panic): not the model's to fix.
	// The engine aborts the turn with it as a Go error, the session saved,
	// instead of sending it to the model.
	CategoryInternal Category = "internal"
)

// Meta is structured detail about a tool call for front ends and the session
// store; the model sees Result.Output and Result.Error only.
type Meta struct {
	// Path is the main file or directory, relative to the workspace root
	// (slash-separated) when inside it, absolute otherwise.
	Path string `json:"path,omitempty"`
	// Diff is a unified diff (go-udiff format, "--- a/p" / "+++ b/p") of the
	// change made, or that would be made by a dry run. Capped at MaxDiffBytes.
	Diff string `json:"diff,omitempty"`
	// ExitCode is the exit status of a command (nil when none ran).
	ExitCode *int `json:"exit_code,omitempty"`
	// Lines is the number of lines shown (read tools) or written (write
	// tools).
	Lines int `json:"lines,omitempty"`
	// Matches is the number of matches found (grep, search_files,
	// find_replace_in_files).
	Matches int `json:"matches,omitempty"`
	// Files lists the files changed (workspace-relative), for multi-file
	// tools.
	Files []string `json:"files,omitempty"`
	// Truncated reports that Output was cut at a cap.
	Truncated bool `json:"truncated,omitempty"`
	// Sandbox is set when a command failed because the OS sandbox
	// stopped it: the one line saying so and how to allow it
	// (Confiner.Explain).
	Sandbox string `json:"sandbox,omitempty"`
}

// Result is the outcome of one tool call, fed back to the model as the tool
// result. OK false means Error (and Category) are set; Output may still hold
// partial output.
type Result struct {
	OK       bool     `json:"ok"`
	Output   string   `json:"output"`
	Error    string   `json:"error,omitempty"`
	Category Category `json:"category,omitempty"`
	Meta     *Meta    `json:"metadata,omitempty"`
	// Images are pictures for the model to see with Output (read_file of
	// an image or a notebook with plots). The engine sends them as image
	// parts when the model accepts images, else a note says it cannot.
	Images []Image `json:"-"`
}

// Image is one picture in a Result: MIME is image/png, image/jpeg,
// image/gif or image/webp; Data the encoded bytes.
type Image struct {
	MIME string
	Data []byte
}

// Success returns an OK result with output and optional metadata.
func Success(output string, meta *Meta) Result {
	return Result{OK: true, Output: output, Meta: meta}
}

// Failf returns a failed result of category cat with a formatted message.
// The message should tell the model what to do next.
func Failf(cat Category, format string, args ...any) Result {
	return Result{Category: cat, Error: fmt.Sprintf(format, args...)}
}

// Error is the error type returned by Registry.Prepare: a model-facing
// message with its category.
type Error struct {
	Category Category
	Message  string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

func errorf(cat Category, format string, args ...any) *Error {
	return &Error{Category: cat, Message: fmt.Sprintf(format, args...)}
}

// ErrorResult converts an error (usually an *Error from Prepare) into a
// failed Result; errors of other types become CategoryExecution.
func ErrorResult(err error) Result {
	if err == nil {
		return Failf(CategoryExecution, "unknown error")
	}
	var te *Error
	if errors.As(err, &te) {
		return Result{Category: te.Category, Error: te.Message}
	}
	return Result{Category: CategoryExecution, Error: err.Error()}
}
