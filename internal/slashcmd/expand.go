package slashcmd

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/claudecompat"
)

var positional = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$(ARGUMENTS|[1-9])`) })

// Substitute fills $ARGUMENTS (args as typed, trimmed) and $1..$9 (the
// words of SplitArgs; a missing one is empty) into body. When body uses
// neither and args is not empty, args is appended as a last line
// "ARGUMENTS: args", as Claude Code does. Errors: SplitArgs's.
func Substitute(body, args string) (string, error) {
	args = strings.TrimSpace(args)
	words, err := SplitArgs(args)
	if err != nil {
		return "", err
	}
	used := false
	out := positional().ReplaceAllStringFunc(body, func(m string) string {
		used = true
		if m == "$ARGUMENTS" {
			return args
		}
		n, _ := strconv.Atoi(m[1:])
		if n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	if !used && args != "" {
		out = strings.TrimRight(out, "\n") + "\n\nARGUMENTS: " + args + "\n"
	}
	return out, nil
}

// Resolver does the parts of an expansion that reach outside the text:
// Include reads an @path (ok false: no such file, the mention stays text;
// an error: refused, e.g. outside the workspace), Run runs a !`command`
// under the permission policy and returns its output (an error: refused
// or failed to start).
type Resolver struct {
	Include func(ctx context.Context, path string) (content string, ok bool, err error)
	Run     func(ctx context.Context, command string) (output string, err error)
}

var (
	bangCommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("!`([^`\n]+)`") })
	atMention   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s(])@([^\s@` + "`" + `]+)`) })
)

// maxIncludes caps the @path includes of one command.
const maxIncludes = 20

// Expand returns c's prompt for args: c.Prompt's text when it is set;
// otherwise [Substitute], then each !`command`
// replaced by its output (Resolver.Run), then each @path that names a
// file followed, at the end, by the file as <file path="...">…</file>
// (Resolver.Include). Errors: bad arguments, a refused or failed command
// or include (wrapped with the command's name).
func Expand(ctx context.Context, c Command, args string, r Resolver) (string, error) {
	if c.Prompt != nil {
		text, err := c.Prompt(ctx, strings.TrimSpace(args))
		if err != nil {
			return "", fmt.Errorf("/%s: %w", c.Name, err)
		}
		return text, nil
	}
	text, err := Substitute(c.Body, args)
	if err != nil {
		return "", fmt.Errorf("/%s: %w", c.Name, err)
	}
	var runErr error
	text = bangCommand().ReplaceAllStringFunc(text, func(m string) string {
		if runErr != nil {
			return m
		}
		cmd := strings.TrimSpace(bangCommand().FindStringSubmatch(m)[1])
		if r.Run == nil {
			runErr = errors.New("commands cannot run here")
			return m
		}
		out, err := r.Run(ctx, cmd)
		if err != nil {
			runErr = fmt.Errorf("!`%s`: %w", cmd, err)
			return m
		}
		return strings.TrimRight(out, "\n")
	})
	if runErr != nil {
		return "", fmt.Errorf("/%s: %w", c.Name, runErr)
	}
	files, err := includes(ctx, text, r)
	if err != nil {
		return "", fmt.Errorf("/%s: %w", c.Name, err)
	}
	return strings.TrimSpace(text) + files, nil
}

// includes reads the @path mentions of text and returns them as
// <file> blocks.
func includes(ctx context.Context, text string, r Resolver) (string, error) {
	var b strings.Builder
	seen := map[string]bool{}
	for _, m := range atMention().FindAllStringSubmatch(text, -1) {
		p := strings.TrimRight(m[1], ".,;:!?)\"'")
		if p == "" || seen[p] || r.Include == nil {
			continue
		}
		seen[p] = true
		if len(seen) > maxIncludes {
			return "", fmt.Errorf("more than %d @file includes: name fewer files", maxIncludes)
		}
		content, ok, err := r.Include(ctx, p)
		if err != nil {
			return "", fmt.Errorf("@%s: %w", p, err)
		}
		if ok {
			fmt.Fprintf(&b, "\n\n<file path=%q>\n%s\n</file>", p, strings.TrimRight(content, "\n"))
		}
	}
	return b.String(), nil
}

// Rules turns allowed-tools entries into aidex permission rules: Claude's
// rules are translated (Bash(git add:*) → run_command(git add:*), Read →
// every file-reading tool; see claudecompat.Rule), aidex's own (lower
// case: run_command(go test *), read_file) are kept. An entry aidex
// cannot translate exactly adds nothing: dropped names each, with why.
// The policy parses the result.
func Rules(allowed []string, o claudecompat.Options) (rules, dropped []string) {
	for _, a := range allowed {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if a[0] >= 'a' && a[0] <= 'z' && !strings.HasPrefix(a, "mcp__") {
			rules = append(rules, a)
			continue
		}
		tr := claudecompat.Rule(a, o)
		if !tr.Exact {
			dropped = append(dropped, a+" ("+tr.Reason+")")
			continue
		}
		rules = append(rules, tr.Rules...)
	}
	return rules, dropped
}

// BangCommands returns the !`command` lines of a command's body, in
// order, as written (before argument substitution).
func BangCommands(body string) []string {
	var out []string
	for _, m := range bangCommand().FindAllStringSubmatch(body, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}
