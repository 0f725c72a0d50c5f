package streamjson

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/hooks"
	"github.com/zelvior/aidex/internal/llm"
)

// Dialect is the shape of --output-format stream-json: aidex's own events
// (agent.Event, one a line) or Claude Code's messages (ClaudeWriter).
type Dialect string

// The dialects.
const (
	DialectAidex  Dialect = "aidex"
	DialectClaude Dialect = "claude"
)

// ParseDialect parses a --stream-dialect value: aidex ("" too) or claude.
// The error names the valid values.
func ParseDialect(s string) (Dialect, error) {
	switch Dialect(strings.ToLower(strings.TrimSpace(s))) {
	case "", DialectAidex:
		return DialectAidex, nil
	case DialectClaude:
		return DialectClaude, nil
	}
	return "", fmt.Errorf("unknown stream dialect %q: use aidex or claude", s)
}

// The lines of Claude Code's stream-json output (claude -p
// --output-format stream-json), field by field.

// ClaudeSystem is the first line: {"type":"system","subtype":"init",...}.
type ClaudeSystem struct {
	Type           string   `json:"type"`    // "system"
	Subtype        string   `json:"subtype"` // "init"
	CWD            string   `json:"cwd"`
	SessionID      string   `json:"session_id"`
	Tools          []string `json:"tools"`
	MCPServers     []any    `json:"mcp_servers"`
	Model          string   `json:"model"`
	PermissionMode string   `json:"permissionMode"`
	SlashCommands  []string `json:"slash_commands"`
	UUID           string   `json:"uuid"`
}

// ClaudeMessageLine is an assistant line (a model message) or a user line
// (tool results): {"type":"assistant"|"user","message":{...},
// "parent_tool_use_id":null|ID,"session_id":...}.
type ClaudeMessageLine struct {
	Type            string        `json:"type"`
	Message         ClaudeMessage `json:"message"`
	ParentToolUseID *string       `json:"parent_tool_use_id"`
	SessionID       string        `json:"session_id"`
	UUID            string        `json:"uuid"`
}

// ClaudeMessage is an Anthropic Messages API message: an assistant
// message (ID "msg_...", Type "message", Model, StopReason null, Usage)
// or a user message of tool_result blocks (Role and Content only).
type ClaudeMessage struct {
	ID           string        `json:"id,omitempty"`
	Type         string        `json:"type,omitempty"`
	Role         string        `json:"role"`
	Model        string        `json:"model,omitempty"`
	Content      []ClaudeBlock `json:"content"`
	StopReason   *string       `json:"stop_reason,omitempty"`
	StopSequence *string       `json:"stop_sequence,omitempty"`
	Usage        *ClaudeUsage  `json:"usage,omitempty"`
	assistant    bool          // not sent: the message is an assistant's (stop_reason null is written)
}

// MarshalJSON writes an assistant message with "stop_reason":null and
// "stop_sequence":null, as the Anthropic API does while streaming.
func (m ClaudeMessage) MarshalJSON() ([]byte, error) {
	type plain ClaudeMessage
	if !m.assistant {
		return json.Marshal(plain(m))
	}
	return json.Marshal(struct {
		ID           string        `json:"id"`
		Type         string        `json:"type"`
		Role         string        `json:"role"`
		Model        string        `json:"model"`
		Content      []ClaudeBlock `json:"content"`
		StopReason   *string       `json:"stop_reason"`
		StopSequence *string       `json:"stop_sequence"`
		Usage        *ClaudeUsage  `json:"usage,omitempty"`
	}{m.ID, m.Type, m.Role, m.Model, m.Content, m.StopReason, m.StopSequence, m.Usage})
}

// ClaudeBlock is a content block: {"type":"text","text"},
// {"type":"tool_use","id","name","input"} or {"type":"tool_result",
// "tool_use_id","content","is_error"}.
type ClaudeBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
}

// ClaudeUsage is the Anthropic API's token usage.
type ClaudeUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

func claudeUsage(u llm.Usage) ClaudeUsage {
	return ClaudeUsage{InputTokens: u.InputTokens, CacheCreationInputTokens: u.CacheWriteTokens, CacheReadInputTokens: u.CacheReadTokens, OutputTokens: u.OutputTokens}
}

// ClaudeResult is the last line of a run: {"type":"result","subtype":
// "success"|"error_max_turns"|"error_max_budget_usd"|
// "error_during_execution",...}; durations in milliseconds, cost in USD.
type ClaudeResult struct {
	Type              string         `json:"type"` // "result"
	Subtype           string         `json:"subtype"`
	IsError           bool           `json:"is_error"`
	DurationMS        int64          `json:"duration_ms"`
	DurationAPIMS     int64          `json:"duration_api_ms"`
	NumTurns          int            `json:"num_turns"`
	Result            string         `json:"result"`
	SessionID         string         `json:"session_id"`
	TotalCostUSD      float64        `json:"total_cost_usd"`
	Usage             ClaudeUsage    `json:"usage"`
	PermissionDenials []ClaudeDenial `json:"permission_denials"`
	Errors            []string       `json:"errors,omitempty"`
	UUID              string         `json:"uuid"`
}

// ClaudeDenial is a call the permission policy refused, in the result's
// permission_denials.
type ClaudeDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// The result subtypes.
const (
	ClaudeSuccess        = "success"
	ClaudeErrorMaxTurns  = "error_max_turns"
	ClaudeErrorBudget    = "error_max_budget_usd"
	ClaudeErrorExecution = "error_during_execution"
)

// ClaudeInit is what the system/init line tells: the workspace, the
// model (as the provider names it), the tools offered (aidex's names;
// those with a Claude Code equivalent are written as Claude names them)
// and the permission mode (aidex's: plan, ask, auto-edit, yolo; written
// as Claude's plan, default, acceptEdits, bypassPermissions).
type ClaudeInit struct {
	// SessionID is the session's id, for a result line that comes
	// before any run (a user message that could not run).
	SessionID      string
	CWD            string
	Model          string
	Tools          []string
	PermissionMode string
	SlashCommands  []string
	// ResultOnly writes the result lines only (claude -p --output-format
	// json prints that one object).
	ResultOnly bool
}

// ClaudeWriter writes a run's engine events as Claude Code's stream-json
// lines: system/init once, before the first run's messages; an assistant
// line per model message (its text and tool_use blocks, with Claude's
// tool names and inputs; a message whose calls ran one by one continues
// in further lines with the same message id, as Claude Code splits
// them); a user line per tool result; and, from Result, the result line
// closing each run. Subagents' messages carry the task call's id in
// parent_tool_use_id. Reasoning, approvals and aidex's other events have
// no line. Safe for concurrent use.
type ClaudeWriter struct {
	mu   sync.Mutex
	enc  *json.Encoder
	init ClaudeInit
	now  func() time.Time

	inited    bool
	sessionID string
	start     time.Time
	apiTime   time.Duration
	waiting   map[string]time.Time
	msgs      map[string]*pendingMessage
	order     []string // keys of msgs in the order they began
	seq       int
	calls     map[string]ClaudeBlock
	denials   []ClaudeDenial
	errors    []string
}

type pendingMessage struct {
	id     string
	model  string
	blocks []ClaudeBlock
	text   strings.Builder
	usage  *ClaudeUsage
}

// NewClaudeWriter returns a writer of Claude Code's lines to w; now is
// the clock of the durations (nil: time.Now).
func NewClaudeWriter(w io.Writer, init ClaudeInit, now func() time.Time) *ClaudeWriter {
	if now == nil {
		now = time.Now
	}
	return &ClaudeWriter{enc: json.NewEncoder(w), init: init, now: now}
}

// Event takes one engine event of a run.
func (c *ClaudeWriter) Event(e agent.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := e.ParentToolCallID
	switch e.Type {
	case agent.EventSession:
		if key == "" {
			c.begin(e)
		}
	case agent.EventWaiting:
		c.flushAll()
		delete(c.msgs, key) // the next response is another message
		if c.waiting != nil {
			c.waiting[key] = c.now()
		}
	case agent.EventText:
		c.flushOthers(key)
		c.message(key, e.Model).text.WriteString(e.Text)
	case agent.EventToolCall:
		c.flushOthers(key)
		m := c.message(key, e.Model)
		c.closeText(m)
		name, input := hooks.ClaudeTool(e.ToolCall.Name, e.ToolCall.Arguments, c.init.CWD)
		if len(input) == 0 || !json.Valid(input) {
			input = json.RawMessage("{}")
		}
		b := ClaudeBlock{Type: "tool_use", ID: e.ToolCall.ID, Name: name, Input: input}
		m.blocks = append(m.blocks, b)
		c.calls[e.ToolCall.ID] = b
	case agent.EventUsage:
		if e.Usage != nil {
			u := claudeUsage(e.Usage.Turn)
			c.message(key, e.Model).usage = &u
		}
		if t, ok := c.waiting[key]; ok {
			if key == "" {
				c.apiTime += c.now().Sub(t)
			}
			delete(c.waiting, key)
		}
	case agent.EventToolResult:
		c.flushAll()
		c.toolResult(key, e.ToolResult)
	case agent.EventError:
		if key == "" && e.Error != nil && e.Error.Fatal {
			c.errors = append(c.errors, e.Error.Message)
		}
	case agent.EventDone:
		if key == "" {
			c.flushAll()
		}
	}
}

// begin starts a run: the system/init line the first time.
func (c *ClaudeWriter) begin(e agent.Event) {
	c.sessionID = e.SessionID
	c.start, c.apiTime = c.now(), 0
	c.waiting, c.msgs, c.order, c.calls, c.denials, c.errors = map[string]time.Time{}, map[string]*pendingMessage{}, nil, map[string]ClaudeBlock{}, nil, nil
	if c.inited {
		return
	}
	c.inited = true
	model := c.init.Model
	if model == "" && e.Session != nil {
		model = e.Session.Model
	}
	cwd := c.init.CWD
	if cwd == "" && e.Session != nil {
		cwd = e.Session.Workspace
	}
	c.line(ClaudeSystem{Type: "system", Subtype: "init", CWD: cwd, SessionID: e.SessionID, Tools: claudeTools(c.init.Tools),
		MCPServers: []any{}, Model: model, PermissionMode: ClaudeMode(c.init.PermissionMode), SlashCommands: nonNil(c.init.SlashCommands), UUID: newUUID()})
}

// line writes a system, assistant or user line (none with ResultOnly).
func (c *ClaudeWriter) line(v any) {
	if !c.init.ResultOnly {
		_ = c.enc.Encode(v)
	}
}

// message returns the message being written for key, begun if none.
func (c *ClaudeWriter) message(key, model string) *pendingMessage {
	if c.msgs == nil {
		c.begin(agent.Event{})
	}
	m := c.msgs[key]
	if m == nil {
		c.seq++
		_, name, ok := strings.Cut(model, "/")
		if !ok {
			name = model
		}
		if name == "" {
			name = c.init.Model
		}
		m = &pendingMessage{id: fmt.Sprintf("msg_%s_%d", strings.ReplaceAll(c.sessionID, "-", ""), c.seq), model: name}
		c.msgs[key] = m
		if !contains(c.order, key) {
			c.order = append(c.order, key)
		}
	}
	return m
}

// closeText ends m's text block (text after a tool call is a new block).
func (c *ClaudeWriter) closeText(m *pendingMessage) {
	if m.text.Len() == 0 {
		return
	}
	t := m.text.String()
	m.blocks = append(m.blocks, ClaudeBlock{Type: "text", Text: &t})
	m.text.Reset()
}

// flushAll writes every pending message, oldest first.
func (c *ClaudeWriter) flushAll() {
	for _, k := range c.order {
		c.flushOne(k)
	}
}

// flushOthers writes the pending messages of the other keys: lines of a
// subagent follow its parent's tool_use, and the other way round.
func (c *ClaudeWriter) flushOthers(key string) {
	for _, k := range c.order {
		if k != key {
			c.flushOne(k)
		}
	}
}

// flushOne writes key's pending blocks as an assistant line; the message
// stays open (its id kept) for blocks still to come.
func (c *ClaudeWriter) flushOne(key string) {
	m := c.msgs[key]
	if m == nil {
		return
	}
	c.closeText(m)
	if len(m.blocks) == 0 {
		return
	}
	msg := ClaudeMessage{ID: m.id, Type: "message", Role: "assistant", Model: m.model, Content: m.blocks, Usage: m.usage, assistant: true}
	c.line(ClaudeMessageLine{Type: "assistant", Message: msg, ParentToolUseID: parent(key), SessionID: c.sessionID, UUID: newUUID()})
	m.blocks = nil
}

func (c *ClaudeWriter) toolResult(key string, r *agent.ToolResultInfo) {
	if r == nil {
		return
	}
	content, isErr := r.Output, !r.OK
	if isErr {
		content = r.Error
		if r.Output != "" && r.Output != r.Error {
			content = strings.TrimRight(r.Output, "\n") + "\n" + r.Error
		}
	}
	b := ClaudeBlock{Type: "tool_result", ToolUseID: r.ID, Content: &content, IsError: &isErr}
	c.line(ClaudeMessageLine{Type: "user", Message: ClaudeMessage{Role: "user", Content: []ClaudeBlock{b}},
		ParentToolUseID: parent(key), SessionID: c.sessionID, UUID: newUUID()})
	if r.Denial != nil && key == "" {
		call, ok := c.calls[r.ID]
		if !ok {
			call = ClaudeBlock{Name: r.Name, Input: json.RawMessage("{}")}
		}
		c.denials = append(c.denials, ClaudeDenial{ToolName: call.Name, ToolUseID: r.ID, ToolInput: call.Input})
	}
}

// Result writes the result line of the run that ended with d (nil: it
// did not run) and runErr. result is the run's answer as it is to be
// reported (finish markers stripped; "" for none).
func (c *ClaudeWriter) Result(d *agent.DoneInfo, result string, runErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.msgs != nil {
		c.flushAll()
	}
	if !c.inited {
		c.begin(agent.Event{SessionID: c.init.SessionID})
	}
	res := ClaudeResult{Type: "result", Subtype: ClaudeSubtype(d, runErr), DurationAPIMS: c.apiTime.Milliseconds(), Result: result,
		SessionID: c.sessionID, PermissionDenials: c.denials, UUID: newUUID()}
	if !c.start.IsZero() {
		res.DurationMS = c.now().Sub(c.start).Milliseconds()
	}
	if res.PermissionDenials == nil {
		res.PermissionDenials = []ClaudeDenial{}
	}
	if d != nil {
		res.NumTurns, res.TotalCostUSD, res.Usage = d.Turns, d.CostUSD, claudeUsage(d.Usage)
	}
	res.IsError = res.Subtype != ClaudeSuccess
	if res.IsError {
		res.Errors = append([]string{}, c.errors...)
		if runErr != nil && !contains(res.Errors, runErr.Error()) {
			res.Errors = append(res.Errors, runErr.Error())
		}
	}
	_ = c.enc.Encode(res)
	c.start, c.msgs, c.order = time.Time{}, nil, nil
}

// ClaudeSubtype is the result subtype of a run that ended with d and err:
// success, error_max_turns, error_max_budget_usd or
// error_during_execution (a failure, an interruption, a loop stopped).
func ClaudeSubtype(d *agent.DoneInfo, err error) string {
	switch {
	case err != nil || d == nil:
		return ClaudeErrorExecution
	case d.StopReason == agent.StopDone || d.StopReason == agent.StopMarker:
		return ClaudeSuccess
	case d.StopReason == agent.StopMaxTurns:
		return ClaudeErrorMaxTurns
	case d.StopReason == agent.StopBudget:
		return ClaudeErrorBudget
	}
	return ClaudeErrorExecution
}

// ClaudeMode names an aidex permission mode as Claude Code does: ask →
// default, auto-edit → acceptEdits, yolo → bypassPermissions, plan →
// plan.
func ClaudeMode(m string) string {
	switch m {
	case "ask", "":
		return "default"
	case "auto-edit":
		return "acceptEdits"
	case "yolo":
		return "bypassPermissions"
	}
	return m
}

// claudeTools names aidex's tools as Claude Code does where it has an
// equivalent, each name once, in order.
func claudeTools(names []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, n := range names {
		cn, _ := hooks.ClaudeTool(n, nil, "")
		if !seen[cn] {
			seen[cn] = true
			out = append(out, cn)
		}
	}
	return out
}

func parent(key string) *string {
	if key == "" {
		return nil
	}
	return &key
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
