package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
)

// fileAsker answers ask_user in headless runs from --answers FILE: a JSON
// object mapping each question's text to its answer (a label, a list of
// labels, a text, "yes"/"no", a list of paths). A question the file does
// not answer, or an answer that does not fit its question, declines the
// interaction with the reason (the model then decides itself) and is
// reported on stderr.
type fileAsker struct {
	path    string
	answers map[string]agent.Reply
	mu      sync.Mutex
	stderr  io.Writer
}

// loadAnswers reads --answers FILE. Errors (exit 2): the file cannot be
// read, is not a JSON object of strings and lists of strings, or is empty.
func loadAnswers(path string, stderr io.Writer) (*fileAsker, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErr("--answers: %v", err)
	}
	var m map[string]agent.Reply
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, usageErr("--answers %s: %v; write a JSON object mapping each question to its answer, e.g. {\"Which database?\": \"SQLite\", \"Which extras?\": [\"auth\"]}", path, err)
	}
	if len(m) == 0 {
		return nil, usageErr("--answers %s has no answers; write a JSON object mapping each question to its answer", path)
	}
	return &fileAsker{path: path, answers: m, stderr: stderr}, nil
}

// Ask answers info from the file, or declines it (never an error).
func (f *fileAsker) Ask(_ context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	ans := agent.InteractionAnswer{ID: info.ID, Answers: map[string]agent.Reply{}}
	for _, q := range info.Questions {
		r, ok := f.answers[q.Question]
		if !ok {
			return f.decline(info, fmt.Sprintf("--answers %s has no answer to %q", f.path, q.Question)), nil
		}
		ans.Answers[q.Question] = r
	}
	checked, err := agent.CheckAnswer(info, ans)
	if err != nil {
		return f.decline(info, fmt.Sprintf("--answers %s: %s", f.path, strings.TrimPrefix(err.Error(), agent.ErrBadAnswer.Error()+": "))), nil
	}
	return checked, nil
}

// decline reports why the file could not answer and declines.
func (f *fileAsker) decline(info agent.InteractionInfo, reason string) agent.InteractionAnswer {
	f.mu.Lock()
	fmt.Fprintf(f.stderr, "aidex: %s; the model was told to decide itself\n", reason)
	f.mu.Unlock()
	return agent.InteractionAnswer{ID: info.ID, Declined: true, Reason: reason}
}

// headlessAsker is the Asker of a headless run: --answers FILE, or nil
// (ask_user is then not offered). Errors: loadAnswers'.
func (a *cliApp) headlessAsker(f *runFlags) (agent.Asker, error) {
	if f.answers == "" {
		return nil, nil
	}
	fa, err := loadAnswers(f.answers, a.proc.Stderr)
	if err != nil {
		return nil, err
	}
	return fa, nil
}
