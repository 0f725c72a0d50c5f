package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/zelvior/aidex/internal/app/toolcall"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// ReprintExchanges is how many of a conversation's last exchanges (a
// prompt and all that answered it) /reprint and a resumed line mode print.
const ReprintExchanges = 10

// Reprint writes the last ReprintExchanges exchanges of a conversation as
// plain text (iptic-memex's reprint_chat): each prompt as "> PROMPT"
// (without attached files), the answers' text, and each tool call as one
// line ("✓ NAME ARG", ✗ when it failed). Reasoning is left out. msgs are
// the last of total messages; earlier ones are counted in a first line.
func Reprint(out io.Writer, msgs []llm.Message, total int) {
	start, failed := format.LastExchanges(msgs, ReprintExchanges)
	if earlier := start + max(total-len(msgs), 0); earlier > 0 {
		fmt.Fprintf(out, "… %d earlier messages not shown\n", earlier)
	}
	for _, m := range msgs[start:] {
		switch m.Role {
		case llm.RoleUser:
			if t := format.PromptText(m); t != "" && !strings.HasPrefix(t, "[aidex, ") {
				fmt.Fprintf(out, "> %s\n", termsafe.Clean(t))
			}
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls() {
				icon := "✓"
				if failed[c.ID] {
					icon = "✗"
				}
				fmt.Fprintf(out, "  %s %s %s\n", icon, c.Name, termsafe.Clean(format.ArgSummary(c.Arguments)))
			}
			if t := strings.TrimSpace(m.Text()); t != "" {
				fmt.Fprintf(out, "%s\n\n", termsafe.Clean(t))
			}
		}
	}
}

// cmdReprint is /reprint: the conversation's last exchanges again.
func cmdReprint(_ context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	msgs, total := c.Recent()
	if total == 0 {
		fmt.Fprintln(out, "the conversation is empty")
		return Outcome{}, nil
	}
	Reprint(out, msgs, total)
	return Outcome{}, nil
}

// isURL reports whether arg is an http(s) URL (/load URL) rather than a
// file name.
func isURL(arg string) bool {
	u, err := url.Parse(arg)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// loadURL is /load URL (iptic-memex's fetch_from_web): the page, fetched
// by the web_fetch tool under the permission policy as the user's own
// action (deny rules and web_fetch's private-address guard apply), goes
// to the model with the next message.
func loadURL(ctx context.Context, c *Controller, raw string, out io.Writer) (Outcome, error) {
	args, _ := json.Marshal(map[string]string{"url": raw})
	res, err := c.Runtime().CallTool(ctx, "web_fetch", args, toolcall.Options{UserAction: true})
	if err != nil {
		return Outcome{}, fmt.Errorf("load %s: %w", raw, err)
	}
	if res.Outcome != toolcall.OK {
		return Outcome{}, fmt.Errorf("load %s: %w", raw, errors.New(res.Result.Error))
	}
	text := strings.TrimSpace(res.Result.Output)
	if text == "" {
		return Outcome{}, fmt.Errorf("load %s: the page is empty", raw)
	}
	c.AddContext(fmt.Sprintf("Web page %s:\n%s", raw, text))
	fmt.Fprintf(out, "loaded %s (%d KB): it goes to the model with your next message\n", raw, (len(text)+1023)>>10)
	return Outcome{}, nil
}
