package permission

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/zelvior/aidex/internal/permission/urlnorm"
)

// Decision is the outcome of a permission check. The zero value is invalid
// and treated as Deny. Severity order: Allow < Ask < Deny.
type Decision int

// Decisions.
const (
	Allow Decision = iota + 1
	Ask
	Deny
)

// String returns "allow", "ask" or "deny".
func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "deny(invalid)"
}

func (d Decision) severity() int {
	if d < Allow || d > Deny {
		return int(Deny)
	}
	return int(d)
}

// ParseDecision parses "allow", "ask" or "deny" (case-insensitive).
// The error names the valid values.
func ParseDecision(s string) (Decision, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return 0, fmt.Errorf("unknown permission decision %q: use allow, ask or deny", s)
}

// CommandTool is the tool name of shell commands; rules for it match
// command lines (aliases accepted in rules: bash, shell).
const CommandTool = "run_command"

// Rule is one permission rule: TOOL or TOOL(PATTERN).
//
// For run_command the pattern is matched against each simple command of
// the line, as its words joined by single spaces (words containing spaces
// or quotes are single-quoted); "*" matches any run of characters, and a
// trailing " *" (or Claude-style ":*") also matches nothing, so
// "go test *" matches "go test" and "go test ./...". For file tools the
// pattern is a doublestar glob over the workspace-relative path with "/"
// separators ("src/**", "*.env"); a pattern without "/" also matches the
// base name at any depth. For other tools the pattern is matched like a
// command against Request.Command (a URL for web_fetch). No "~" or
// $VAR expansion is done in patterns.
type Rule struct {
	// Tool is the lower-case tool name, or "*" for every tool.
	Tool string
	// Pattern is the pattern inside the parentheses; "" matches any input.
	Pattern string
	// Action is Allow, Ask or Deny.
	Action Decision
	// Source names where the rule came from: a config file path, "flag",
	// "session" or "built-in".
	Source string
}

// String returns the rule as written: "TOOL" or "TOOL(PATTERN)".
func (r Rule) String() string {
	if r.Pattern == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Pattern + ")"
}

// ParseRule parses "TOOL" or "TOOL(PATTERN)". The returned rule has no
// Action or Source; set them, or use ParseRules. Errors name the problem
// and show the expected form.
func ParseRule(s string) (Rule, error) {
	orig := s
	s = strings.TrimSpace(s)
	bad := func(why string) (Rule, error) {
		return Rule{}, fmt.Errorf("invalid permission rule %q: %s; write TOOL or TOOL(PATTERN), e.g. run_command(go test *) or write_file(src/**)", orig, why)
	}
	if s == "" {
		return bad("empty rule")
	}
	if strings.ContainsRune(s, 0) {
		return bad("contains a NUL byte")
	}
	tool, pattern := s, ""
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return bad("missing closing parenthesis")
		}
		tool, pattern = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:len(s)-1])
		if pattern == "" {
			return bad("empty pattern in parentheses (drop the parentheses to match every use of the tool)")
		}
	} else if strings.ContainsAny(s, ")") {
		return bad("unbalanced parenthesis")
	}
	tool = normalizeTool(tool)
	if tool == "" {
		return bad("missing tool name")
	}
	if tool != "*" && !isToolName(strings.ReplaceAll(tool, "*", "x")) {
		return bad(fmt.Sprintf("tool name %q must be letters, digits, '_', '-' or '.', with * as a wildcard (mcp__github__*)", tool))
	}
	if tool == CommandTool {
		pattern = normalizeCommandPattern(pattern)
	} else if strings.Contains(pattern, "://") {
		pattern = urlnorm.Pattern(pattern) // matched against normalised URLs (subjectMatchers)
	}
	if tool != CommandTool && pattern != "" && !doublestar.ValidatePattern(pattern) {
		return bad(fmt.Sprintf("bad glob pattern %q", pattern))
	}
	return Rule{Tool: tool, Pattern: pattern}, nil
}

// ParseRules parses rules with one action and source (a config file path
// or "flag"). The error names the source and the first bad rule.
func ParseRules(action Decision, source string, specs []string) ([]Rule, error) {
	if action < Allow || action > Deny {
		return nil, fmt.Errorf("rules from %s: invalid action %d", source, action)
	}
	out := make([]Rule, 0, len(specs))
	var errs []error
	for _, s := range specs {
		r, err := ParseRule(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s (%s rules): %w", source, action, err))
			continue
		}
		r.Action, r.Source = action, source
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

func normalizeTool(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	switch t {
	case "bash", "shell", "run_shell", "exec":
		return CommandTool
	}
	return t
}

func isToolName(t string) bool {
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return t != ""
}

// normalizeCommandPattern collapses whitespace and maps "cmd:*" to "cmd *".
func normalizeCommandPattern(p string) string {
	p = strings.Join(strings.Fields(p), " ")
	if strings.HasSuffix(p, ":*") {
		p = strings.TrimSuffix(p, ":*") + " *"
	}
	return p
}

// matchesTool reports whether the rule applies to tool.
func (r Rule) matchesTool(tool string) bool {
	if r.Tool == "*" {
		return true
	}
	t := normalizeTool(tool)
	if strings.Contains(r.Tool, "*") {
		ok, _ := path.Match(r.Tool, t)
		return ok
	}
	return r.Tool == t
}

// matchCommand matches a command pattern against a command text.
func matchCommand(pattern, text string) bool {
	if pattern == "" {
		return true
	}
	if globMatch(pattern, text) {
		return true
	}
	if p, ok := strings.CutSuffix(pattern, " *"); ok {
		return globMatch(p, text)
	}
	return false
}

// globMatch matches with "*" as the only wildcard (any run of characters).
func globMatch(pattern, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(s) {
		switch {
		case px < len(pattern) && pattern[px] == '*':
			starP, starS = px, sx
			px++
		case px < len(pattern) && pattern[px] == s[sx]:
			px++
			sx++
		case starP >= 0:
			px = starP + 1
			starS++
			sx = starS
		default:
			return false
		}
	}
	for px < len(pattern) && pattern[px] == '*' {
		px++
	}
	return px == len(pattern)
}

// matchPath matches a path rule. rel is the workspace-relative
// slash-separated path (or the absolute path when outside the root).
func matchPath(pattern, rel string) bool {
	if pattern == "" {
		return true
	}
	if ok, _ := doublestar.Match(pattern, rel); ok {
		return true
	}
	if !strings.Contains(pattern, "/") {
		ok, _ := doublestar.Match(pattern, path.Base(rel))
		return ok
	}
	return false
}
