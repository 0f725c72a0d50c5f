package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Baselines are the other agents `aidex eval run --agent` runs through
// their headless modes, each with the flags its documentation gives for
// unattended runs.
func Baselines() []string { return []string{"claude", "codex", "gemini", "opencode"} }

// Command is another agent's headless command line for instruction and
// model ("" = the agent's default). Errors: an agent aidex does not know
// (naming the known ones).
//
//   - claude: `claude -p INSTRUCTION --output-format json
//     --dangerously-skip-permissions [--model M]` (Claude Code's headless
//     mode; its JSON result reports cost and usage)
//   - codex: `codex exec --json --full-auto --skip-git-repo-check [--model M]
//     INSTRUCTION` (JSON Lines events; turn.completed reports usage)
//   - gemini: `gemini -p INSTRUCTION --yolo --output-format json [-m M]`
//     (its JSON reports per-model token stats)
//   - opencode: `opencode run [--model M] INSTRUCTION` (text only)
func Command(agent, instruction, model string) ([]string, error) {
	opt := func(flag string) []string {
		if model == "" {
			return nil
		}
		return []string{flag, model}
	}
	switch agent {
	case "claude":
		return append([]string{"claude", "-p", instruction, "--output-format", "json", "--dangerously-skip-permissions"}, opt("--model")...), nil
	case "codex":
		return append(append([]string{"codex", "exec", "--json", "--full-auto", "--skip-git-repo-check"}, opt("--model")...), instruction), nil
	case "gemini":
		return append([]string{"gemini", "-p", instruction, "--yolo", "--output-format", "json"}, opt("-m")...), nil
	case "opencode":
		return append(append([]string{"opencode", "run"}, opt("--model")...), instruction), nil
	}
	return nil, fmt.Errorf("unknown agent %q: use aidex or one of %s", agent, strings.Join(Baselines(), ", "))
}

// External runs another agent's headless command in the attempt's
// workspace. Confine, when set, puts the command in aidex's OS sandbox
// for that workspace (the network stays on: the agent calls its own
// API). The agent's environment is the user's: its own login or key.
type External struct {
	Name    string
	Confine func(cmd *exec.Cmd, workspace string) error
}

// Run implements Agent. Errors: the agent is not installed; the sandbox
// cannot confine it.
func (x External) Run(ctx context.Context, a Attempt) (AgentResult, error) {
	argv, err := Command(x.Name, a.Task.Instruction, a.Config.Model)
	if err != nil {
		return AgentResult{}, err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return AgentResult{}, fmt.Errorf("%s is not installed (no %s on PATH)", x.Name, argv[0])
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Dir = a.Workspace
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if x.Confine != nil {
		if err := x.Confine(cmd, a.Workspace); err != nil {
			return AgentResult{}, fmt.Errorf("sandbox %s: %w", x.Name, err)
		}
	}
	runErr := cmd.Run()
	res := ParseReport(x.Name, out.Bytes())
	if runErr != nil {
		res.Error = fmt.Sprintf("%s: %v: %s", x.Name, runErr, cut(strings.TrimSpace(errb.String()), 500))
	}
	return res, nil
}

// ParseReport reads what agent printed of tokens, cost, turns and its
// session (fields it does not report stay unknown).
func ParseReport(agent string, out []byte) AgentResult {
	switch agent {
	case "claude":
		return parseClaude(out)
	case "codex":
		return parseCodex(out)
	case "gemini":
		return parseGemini(out)
	}
	return AgentResult{Answer: cut(strings.TrimSpace(string(out)), 2000)}
}

// parseClaude reads `claude -p --output-format json`'s result object
// (the last JSON line when several are printed).
func parseClaude(out []byte) AgentResult {
	var r struct {
		Result    string  `json:"result"`
		SessionID string  `json:"session_id"`
		NumTurns  int     `json:"num_turns"`
		CostUSD   float64 `json:"total_cost_usd"`
		IsError   bool    `json:"is_error"`
		Subtype   string  `json:"subtype"`
		Usage     *struct {
			Input     int `json:"input_tokens"`
			CacheRead int `json:"cache_read_input_tokens"`
			Output    int `json:"output_tokens"`
		} `json:"usage"`
	}
	if lastJSON(out, &r) != nil {
		return AgentResult{Answer: cut(string(out), 2000)}
	}
	res := AgentResult{Answer: r.Result, SessionID: r.SessionID, Turns: r.NumTurns, CostUSD: r.CostUSD, CostKnown: true}
	if r.Usage != nil {
		res.InputTokens, res.CachedTokens, res.OutputTokens, res.TokensKnown = r.Usage.Input, r.Usage.CacheRead, r.Usage.Output, true
	}
	if r.IsError {
		res.Error = "claude: " + r.Subtype
	}
	return res
}

// parseCodex sums the usage of `codex exec --json`'s turn.completed
// events and counts its command and patch items.
func parseCodex(out []byte) AgentResult {
	var res AgentResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Usage    struct {
				Input  int `json:"input_tokens"`
				Cached int `json:"cached_input_tokens"`
				Output int `json:"output_tokens"`
			} `json:"usage"`
			Item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "thread.started":
			res.SessionID = ev.ThreadID
		case "turn.completed":
			res.Turns++
			res.InputTokens += ev.Usage.Input
			res.CachedTokens += ev.Usage.Cached
			res.OutputTokens += ev.Usage.Output
			res.TokensKnown = true
		case "item.completed":
			switch ev.Item.Type {
			case "command_execution", "file_change", "mcp_tool_call":
				res.ToolCalls++
			case "agent_message":
				res.Answer = ev.Item.Text
			}
		}
	}
	return res
}

// parseGemini reads `gemini --output-format json`'s response and sums
// its per-model token stats.
func parseGemini(out []byte) AgentResult {
	var r struct {
		Response string `json:"response"`
		Stats    struct {
			Models map[string]struct {
				Tokens struct {
					Prompt     int `json:"prompt"`
					Candidates int `json:"candidates"`
					Cached     int `json:"cached"`
				} `json:"tokens"`
			} `json:"models"`
			Tools struct {
				TotalCalls int `json:"totalCalls"`
			} `json:"tools"`
		} `json:"stats"`
	}
	if lastJSON(out, &r) != nil {
		return AgentResult{Answer: cut(string(out), 2000)}
	}
	res := AgentResult{Answer: r.Response, ToolCalls: r.Stats.Tools.TotalCalls, TokensKnown: len(r.Stats.Models) > 0}
	for _, m := range r.Stats.Models {
		res.InputTokens += m.Tokens.Prompt
		res.CachedTokens += m.Tokens.Cached
		res.OutputTokens += m.Tokens.Candidates
	}
	return res
}

// lastJSON decodes the whole of out, or else its last line that is a
// JSON object, into v.
func lastJSON(out []byte, v any) error {
	if json.Unmarshal(bytes.TrimSpace(out), v) == nil {
		return nil
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := bytes.TrimSpace(lines[i]); len(l) > 0 && l[0] == '{' && json.Unmarshal(l, v) == nil {
			return nil
		}
	}
	return errors.New("no JSON object in the output")
}
