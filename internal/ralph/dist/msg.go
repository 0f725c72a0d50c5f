package dist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zelvior/aidex/internal/ralph"
)

// Names of the streams, consumer, bucket and subjects.
const (
	TaskStream    = "RALPH_TASKS"
	ResultStream  = "RALPH_RESULTS"
	WorkConsumer  = "ralph-workers"
	ControlBucket = "RALPH_CONTROL"
	controlKey    = "run"
	taskSubject   = "ralph.task."
	resultSubject = "ralph.result."
	workerSubject = "ralph.worker."
	statusSubject = "ralph.status"
)

// Caps on what a worker accepts, in bytes (MaxTaskMsg for a whole task
// message) or items.
const (
	MaxTaskMsg     = 64 << 10
	MaxResultMsg   = 64 << 10
	maxTitle       = 500
	maxDescription = 32 << 10
	maxCriteria    = 50
	maxCriterion   = 2000
	maxVerify      = 2000
	maxRemote      = 2000
)

// MaxDeliver is how many times a task is handed to a worker before it
// is failed.
const MaxDeliver = 3

// DefaultAckWait is how long a worker may stay silent on a task before
// the task goes to another worker (--ack-wait).
const DefaultAckWait = 30 * time.Second

// validTaskID: letters, digits, '.', '_', '-', starting with a letter
// or digit, at most 64 bytes (a NATS subject token and a branch name).
func validTaskID(s string) bool {
	if s == "" || len(s) > 64 || !isAlnum(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return !strings.Contains(s, "..") && !strings.HasSuffix(s, ".lock") && !strings.HasSuffix(s, ".")
}

// validRunID: 8 to 32 lower-case letters and digits.
func validRunID(s string) bool {
	if len(s) < 8 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// validCommit: a full SHA-1 or SHA-256 commit id in lower-case hex.
func validCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// TaskMsg is one task on the work queue. Run is the coordinator's run id
// (results go to ralph.result.<run>.<id>); Base the commit the task's
// branch starts from; Remote the repository a remote worker clones, fetches
// and pushes to ("" for the coordinator's own workers, which share its
// repository); Verify the verification command the coordinator asks for
// (run only if the worker allows it); BestOf > 1 marks one of K attempts
// (Attempt 1..K) of the same task.
type TaskMsg struct {
	Run                string   `json:"run"`
	ID                 string   `json:"id"`
	Title              string   `json:"title"`
	Description        string   `json:"description,omitempty"`
	AcceptanceCriteria []string `json:"acceptance_criteria,omitempty"`
	Base               string   `json:"base"`
	Remote             string   `json:"remote,omitempty"`
	Verify             string   `json:"verify,omitempty"`
	BestOf             int      `json:"best_of,omitempty"`
	Attempt            int      `json:"attempt,omitempty"`
}

// Result kinds.
const (
	KindStart    = "start"    // a worker took the task
	KindOutcome  = "outcome"  // the task ended (Outcome)
	KindRetry    = "retry"    // the worker gave the task back (Note: why); it is redelivered
	KindRejected = "rejected" // the worker refused the message (Note: why); it is not redelivered
)

// ResultMsg is what a worker reports on ralph.result.<run>.<task>.
// Delivery is the JetStream delivery count of the task message (1 for
// the first worker to get it).
type ResultMsg struct {
	Run      string         `json:"run"`
	TaskID   string         `json:"task_id"`
	Attempt  int            `json:"attempt,omitempty"`
	Kind     string         `json:"kind"`
	Worker   string         `json:"worker"`
	Delivery int            `json:"delivery"`
	Note     string         `json:"note,omitempty"`
	Outcome  *ralph.Outcome `json:"outcome,omitempty"`
	Changed  int            `json:"changed_lines,omitempty"`
}

// Heartbeat is a worker's periodic status on ralph.worker.<id>: its id,
// host, the tasks it works on, its concurrency and when it was sent.
type Heartbeat struct {
	Worker      string    `json:"worker"`
	Host        string    `json:"host"`
	Tasks       []string  `json:"tasks"`
	Concurrency int       `json:"concurrency"`
	Paused      bool      `json:"paused,omitempty"`
	At          time.Time `json:"at"`
}

// decodeStrict decodes one JSON object of at most limit bytes into v,
// refusing unknown fields and trailing data.
func decodeStrict(data []byte, limit int, v any) error {
	if len(data) > limit {
		return fmt.Errorf("message of %d bytes is over the %d-byte cap", len(data), limit)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not a valid message: %w", err)
	}
	if dec.More() {
		return errors.New("not a valid message: data after the JSON object")
	}
	return nil
}

// ParseTask decodes and checks a task message: size, schema, the id,
// run and base formats, and the length of every field.
func ParseTask(data []byte) (TaskMsg, error) {
	var m TaskMsg
	if err := decodeStrict(data, MaxTaskMsg, &m); err != nil {
		return m, err
	}
	return m, m.check()
}

func (m TaskMsg) check() error {
	switch {
	case !validTaskID(m.ID):
		return fmt.Errorf("task id %q is not a task id (letters, digits, . _ -; at most 64)", cut(m.ID, 80))
	case !validRunID(m.Run):
		return fmt.Errorf("run id %q is malformed", cut(m.Run, 40))
	case !validCommit(m.Base):
		return fmt.Errorf("base %q is not a full commit id", cut(m.Base, 80))
	case m.Title == "" || len(m.Title) > maxTitle:
		return fmt.Errorf("task title empty or over %d bytes", maxTitle)
	case len(m.Description) > maxDescription:
		return fmt.Errorf("task description over %d bytes", maxDescription)
	case len(m.AcceptanceCriteria) > maxCriteria:
		return fmt.Errorf("over %d acceptance criteria", maxCriteria)
	case len(m.Verify) > maxVerify || strings.ContainsAny(m.Verify, "\x00"):
		return errors.New("verify command too long or not text")
	case len(m.Remote) > maxRemote || strings.ContainsAny(m.Remote, "\x00\n\r"):
		return errors.New("remote too long or not one line")
	case strings.HasPrefix(m.Remote, "-"):
		return fmt.Errorf("remote %q starts with '-'", cut(m.Remote, 80))
	case m.BestOf < 0 || m.BestOf > 16 || m.Attempt < 0 || m.Attempt > 16:
		return errors.New("best_of and attempt must be 0..16")
	}
	for _, c := range m.AcceptanceCriteria {
		if len(c) > maxCriterion {
			return fmt.Errorf("an acceptance criterion is over %d bytes", maxCriterion)
		}
	}
	return nil
}

// ParseResult decodes and checks a result message.
func ParseResult(data []byte) (ResultMsg, error) {
	var r ResultMsg
	if err := decodeStrict(data, MaxResultMsg, &r); err != nil {
		return r, err
	}
	switch {
	case !validTaskID(r.TaskID):
		return r, fmt.Errorf("task id %q is not a task id", cut(r.TaskID, 80))
	case r.Kind != KindStart && r.Kind != KindOutcome && r.Kind != KindRetry && r.Kind != KindRejected:
		return r, fmt.Errorf("unknown result kind %q", cut(r.Kind, 40))
	case r.Kind == KindOutcome && r.Outcome == nil:
		return r, errors.New("an outcome result without its outcome")
	case len(r.Worker) > 200:
		return r, errors.New("worker id over 200 bytes")
	}
	return r, nil
}

// branchName is the task's branch: ralph/<id>, or ralph/<id>-<attempt>
// for one of best-of-K attempts.
func branchName(id string, attempt int) string {
	if attempt > 0 {
		return fmt.Sprintf("ralph/%s-%d", id, attempt)
	}
	return "ralph/" + id
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// streamConfigs are the two streams: the work queue (a message is gone
// once a worker acks it) and the results (kept a day, for late readers).
func streamConfigs() (tasks, results jetstream.StreamConfig) {
	tasks = jetstream.StreamConfig{Name: TaskStream, Subjects: []string{taskSubject + ">"},
		Retention: jetstream.WorkQueuePolicy, MaxMsgSize: MaxTaskMsg, Storage: jetstream.FileStorage,
		Duplicates: time.Minute}
	results = jetstream.StreamConfig{Name: ResultStream, Subjects: []string{resultSubject + ">"},
		Retention: jetstream.LimitsPolicy, MaxAge: 24 * time.Hour, MaxMsgSize: MaxResultMsg,
		Storage: jetstream.FileStorage, Duplicates: time.Minute}
	return tasks, results
}
