package web

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/slash"
)

// The web chat's built-in slash commands: the commands of the one table
// (internal/ui/slash) that run in slash.Web, the safe subset of the
// terminal's. They run in the server and never reach the model. Commands
// that read or write files or settings outside the web's lockdown
// (/config, /load, /export, /edit, !command, ...) are refused with the
// table's reason.

// CommandEvent is the data of the "command" SSE event of a chat message
// that was a built-in slash command: the command, its output (plain text,
// one line or a list), and what the page must reload: Status (provider,
// model or mode changed) or Cleared (a new, empty session SessionID).
type CommandEvent struct {
	Command   string `json:"command"`
	Output    string `json:"output"`
	Status    bool   `json:"status,omitempty"`
	Cleared   bool   `json:"cleared,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// webCommand is one built-in slash command of the web chat: the table's
// row and the web's implementation.
type webCommand struct {
	name, args, help string
	run              webRun
}

// webRun is a web chat command's implementation.
type webRun = func(ctx context.Context, s *Server, ls *liveSession, arg string, out *CommandEvent) error

// webCommands is the web chat's table (run before custom commands):
// slash.For(slash.Web), in help order.
func webCommands() []webCommand {
	var out []webCommand
	for _, c := range slash.For(slash.Web) {
		out = append(out, webCommand{c.Name, c.Args, c.Help, webRunOf(c.Name)})
	}
	return out
}

// webRunOf returns the web's implementation of command name (nil for one
// the web does not run: a test keeps the table and this map in step).
func webRunOf(name string) webRun {
	return map[string]webRun{"/help": cmdWebHelp, "/model": cmdWebModel, "/provider": cmdWebProvider, "/mode": cmdWebMode,
		"/clear": cmdWebClear, "/compact": cmdWebCompact, "/cost": cmdWebCost, "/tasks": cmdWebTasks, "/permissions": cmdWebPermissions}[name]
}

// cmdWebPermissions lists the saved permission rules; removing one
// changes the config files, which the browser does not (the error says
// where to).
func cmdWebPermissions(_ context.Context, s *Server, _ *liveSession, arg string, out *CommandEvent) error {
	if strings.TrimSpace(arg) != "" && strings.TrimSpace(arg) != "list" {
		return fmt.Errorf("the web chat lists the rules only: remove one in a terminal with `aidex permissions remove RULE` (or /permissions remove RULE in the terminal UI)")
	}
	var b strings.Builder
	if err := format.WritePermissionRules(&b, app.PermissionRules(s.Runtime().Config)); err != nil {
		return err
	}
	out.Output = b.String()
	return nil
}

// refusedCommand says why the web chat does not run one of the terminal's
// commands, and what to use instead (ok false: not such a command): the
// table's reason (slash.Refusal).
func refusedCommand(name string) (why string, ok bool) { return slash.Refusal(name, slash.Web) }

// builtinCommand runs msg when it is a built-in slash command or a refused
// one ("!command" included): handled is then true, and err (a refusal or
// a failure) is for the user. Other messages are left alone.
func (s *Server) builtinCommand(ctx context.Context, ls *liveSession, msg string) (ev CommandEvent, handled bool, err error) {
	msg = strings.TrimSpace(msg)
	if strings.HasPrefix(msg, "!") {
		return CommandEvent{Command: "!"}, true, fmt.Errorf("shell commands (!command) do not run from the web chat: ask the model, which runs commands under the permission policy")
	}
	name, arg, _ := strings.Cut(msg, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, arg = name[:i], msg[i:]
	}
	arg = strings.TrimSpace(arg)
	ev.Command = name
	if why, ok := refusedCommand(name); ok {
		return ev, true, fmt.Errorf("%s is not available in the web chat: %s", name, why)
	}
	c, ok := slash.Find(name)
	if !ok || !c.Runs(slash.Web) {
		return ev, false, nil
	}
	return ev, true, webRunOf(c.Name)(ctx, s, ls, arg, &ev)
}

func cmdWebHelp(ctx context.Context, s *Server, _ *liveSession, _ string, out *CommandEvent) error {
	var b strings.Builder
	for _, c := range webCommands() {
		fmt.Fprintf(&b, "%-10s %-22s %s\n", c.name, c.args, c.help)
	}
	cmds, _ := s.svc.CustomCommands(ctx)
	for _, c := range cmds {
		name := "/" + strings.TrimPrefix(c.Name, "/")
		if slices.ContainsFunc(webCommands(), func(w webCommand) bool { return w.name == name }) {
			name = "/" + c.PathName() // the built-in keeps the short name
		}
		fmt.Fprintf(&b, "%-10s %-22s %s\n", name, c.ArgumentHint, c.Description)
	}
	out.Output = strings.TrimRight(b.String(), "\n")
	return nil
}

func cmdWebModel(ctx context.Context, s *Server, _ *liveSession, arg string, out *CommandEvent) error {
	if arg != "" {
		rt, err := s.svc.SwitchModel(ctx, arg)
		if err != nil {
			return err
		}
		out.Output, out.Status = fmt.Sprintf("model: %s/%s", rt.Provider.Name, rt.Model), true
		return nil
	}
	rt := s.Runtime()
	ml, err := rt.Models(ctx, "", catalog.ListOptions{})
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model: %s/%s (switch with /model ID)\n", rt.Provider.Name, rt.Model)
	writeModels(&b, ml, rt.Model)
	out.Output = strings.TrimRight(b.String(), "\n")
	return nil
}

// writeModels lists up to 40 models of ml, the current one marked.
func writeModels(w io.Writer, ml catalog.ModelList, current string) {
	for i, m := range ml.Models {
		if i == 40 {
			fmt.Fprintf(w, "  ... and %d more (Models panel)\n", len(ml.Models)-40)
			break
		}
		mark := " "
		if m.ID == current {
			mark = "*"
		}
		label := strings.TrimSpace(catalog.PriceLabel(m) + "  " + catalog.ContextLabel(m.ContextWindow))
		fmt.Fprintf(w, "%s %s  %s\n", mark, m.ID, label)
	}
}

func cmdWebProvider(ctx context.Context, s *Server, _ *liveSession, arg string, out *CommandEvent) error {
	rt := s.Runtime()
	if arg == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "provider: %s (switch with /provider NAME)\n", rt.Provider.Name)
		for _, p := range rt.Catalog.Providers() {
			key := "key set"
			if p.RequiresKey && p.KeySource(rt.Getenv) == "" {
				key = "no key: add it in Settings"
				if p.SignupURL != "" {
					key += " (get one at " + p.SignupURL + ")"
				}
			} else if !p.RequiresKey {
				key = "no key needed"
			}
			fmt.Fprintf(&b, "  %-14s %s\n", p.Name, key)
		}
		out.Output = strings.TrimRight(b.String(), "\n")
		return nil
	}
	p, ok := rt.Catalog.Provider(arg)
	if !ok {
		return fmt.Errorf("unknown provider %q: /provider lists them", arg)
	}
	if p.RequiresKey && p.APIKey(rt.Getenv) == "" {
		return fmt.Errorf("provider %s needs an API key: add it in Settings (get one at %s)", p.Name, orSite(p.SignupURL))
	}
	nrt, err := s.svc.SwitchProvider(ctx, arg, "")
	if err != nil {
		return err
	}
	out.Output, out.Status = fmt.Sprintf("provider: %s · model %s", nrt.Provider.Name, nrt.Model), true
	return nil
}

func orSite(u string) string {
	if u == "" {
		return "the provider's site"
	}
	return u
}

func cmdWebMode(_ context.Context, s *Server, _ *liveSession, arg string, out *CommandEvent) error {
	if arg != "" {
		m, err := app.ParseMode(arg)
		if _, multiErr := multi.ParseMode(arg); err != nil && multiErr == nil {
			return fmt.Errorf("/mode %s is a conversation mode (Nexus Code's /mode): in the web chat the models panel sets it (POST /api/v1/multi {\"mode\": %q}); /mode sets the permission mode", arg, arg)
		}
		if err != nil {
			return err
		}
		if app.ModeWider(m, s.baseMode) || m == "yolo" {
			return fmt.Errorf("/mode %s is wider than this server's permission mode %q: the web chat can only narrow it (set permission_mode in the config file and restart `aidex web` to widen it)", m, s.baseMode)
		}
		if err := s.svc.SetMode(m); err != nil {
			return err
		}
		out.Status = true
	}
	out.Output = "permission mode: " + s.svc.Mode()
	return nil
}

func cmdWebClear(ctx context.Context, s *Server, _ *liveSession, _ string, out *CommandEvent) error {
	sess, err := s.svc.Pick(ctx, "", false)
	if err != nil {
		return err
	}
	s.host.Adopt(sess)
	s.mu.Lock()
	s.current = sess.ID
	s.mu.Unlock()
	out.Output, out.Cleared, out.SessionID = "new session "+sess.ID, true, sess.ID
	return nil
}

func cmdWebCompact(ctx context.Context, _ *Server, ls *liveSession, arg string, out *CommandEvent) error {
	var b strings.Builder
	err := slash.Compact(ctx, ls.live, arg, &b)
	out.Output = strings.TrimRight(b.String(), "\n")
	return err
}

func cmdWebCost(ctx context.Context, s *Server, ls *liveSession, arg string, out *CommandEvent) error {
	var b strings.Builder
	if err := slash.Cost(ctx, s.svc, ls.live, arg, &b); err != nil {
		return err
	}
	out.Output = strings.TrimRight(b.String(), "\n")
	return nil
}

func cmdWebTasks(_ context.Context, s *Server, _ *liveSession, _ string, out *CommandEvent) error {
	snap, err := s.ralph.Snapshot()
	if err != nil {
		return err
	}
	if len(snap.Tasks) == 0 {
		out.Output = "no Ralph tasks (add them in the Ralph panel)"
		return nil
	}
	var b strings.Builder
	for _, t := range snap.Tasks {
		fmt.Fprintf(&b, "%s  %-11s %-2s %s\n", t.ID, t.Status, t.Priority, t.Title)
	}
	out.Output = strings.TrimRight(b.String(), "\n")
	return nil
}
