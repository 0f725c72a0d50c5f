package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/multi"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/wire"
	"github.com/zelvior/aidex/internal/session"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/slash"
)

// InitPrompt is the prompt /init sends: the model studies the project and
// writes AGENTS.md.
const InitPrompt = `Study this project and write an AGENTS.md file at the workspace root for AI coding agents working on it. ` +
	`Look at the layout, the build and test commands, the languages and frameworks, the code style and conventions, ` +
	`and anything surprising. Keep it short (under 60 lines), concrete and correct: commands that really work here, ` +
	`paths that exist. If an AGENTS.md already exists, improve it instead of starting over. Write the file with your tools.`

// Default returns the terminal's slash commands (the terminal UI's and
// the line mode's) in help order: For(slash.Terminal).
func Default() Table { return For(slash.Terminal) }

// For returns the commands of the one table (slash.Builtins) that front
// end f runs, in help order, with their implementations (runOf). Names,
// arguments, help texts and aliases come from the table only.
func For(f slash.Front) Table {
	var t Table
	for _, b := range slash.For(f) {
		t = append(t, Spec{Name: b.Name, Args: b.Args, Help: b.Help, Aliases: b.Aliases, Run: runOf(b.Name)})
	}
	return t
}

// RunFunc is a command's implementation: it runs with the argument text
// (trimmed) and writes its text to out.
type RunFunc = func(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error)

// runOf returns the implementation of built-in command name (nil for a
// name the table has and this package does not implement: a test keeps
// that from happening).
func runOf(name string) RunFunc {
	return map[string]RunFunc{
		"/help": cmdHelp, "/model": cmdModel, "/provider": cmdProvider, "/models": cmdModels, "/multi": cmdMulti,
		"/mode": cmdMode, "/permissions": cmdPermissions, "/architect": cmdArchitect, "/sandbox": cmdSandbox, "/tools": cmdTools, "/skills": cmdSkills,
		"/mcp": cmdMCP, "/plugin": cmdPlugin, "/clear": cmdClear, "/compact": cmdCompact, "/summary": cmdSummary, "/cost": cmdCost,
		"/context": cmdContext, "/undo": cmdUndo, "/rewind": cmdRewind, "/sessions": cmdSessions, "/resume": cmdResume,
		"/export": cmdExport, "/reprint": cmdReprint, "/save-code": cmdSaveCode, "/load": cmdLoad, "/load-project": cmdLoadProject, "/edit": action(ActEdit),
		"/copy": action(ActCopy), "/verbose": action(ActVerbose), "/plan": cmdPlan, "/tasks": cmdTasks,
		"/task-edit": cmdTaskEdit, "/implement": cmdImplement, "/implement-all": cmdImplementAll, "/memory": cmdMemory,
		"/notes": cmdNotes, "/image": cmdImage, "/config": cmdConfig, "/init": cmdInit, "/exit": cmdExit,
	}[name]
}

func action(a Action) func(context.Context, *Controller, string, io.Writer) (Outcome, error) {
	return func(context.Context, *Controller, string, io.Writer) (Outcome, error) {
		return Outcome{Action: a}, nil
	}
}

// cmdHelp lists the commands of the controller's front end.
func cmdHelp(_ context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	For(c.Front()).Help(out)
	return Outcome{}, nil
}

func cmdExit(context.Context, *Controller, string, io.Writer) (Outcome, error) {
	return Outcome{Quit: true}, nil
}

func cmdInit(context.Context, *Controller, string, io.Writer) (Outcome, error) {
	return Outcome{Prompt: InitPrompt}, nil
}

func cmdModel(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	if arg == "" {
		return Outcome{Action: ActPickModel}, nil
	}
	if err := c.SwitchModel(ctx, arg); err != nil {
		return Outcome{}, err
	}
	fmt.Fprintf(out, "model: %s/%s\n", c.Runtime().Provider.Name, c.Runtime().Model)
	return Outcome{}, nil
}

func cmdProvider(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	if arg == "" {
		return Outcome{Action: ActPickProvider}, nil
	}
	if _, ok := c.Runtime().Catalog.Provider(arg); !ok {
		return Outcome{}, fmt.Errorf("unknown provider %q: /provider lists them", arg)
	}
	if NeedsServer(c.Runtime(), arg) {
		return Outcome{Action: ActAskServer}, nil
	}
	if c.NeedsKey(arg) {
		return Outcome{Action: ActAskKey, Arg: arg}, nil
	}
	if err := c.SwitchProvider(ctx, arg, ""); err != nil {
		return Outcome{}, err
	}
	rt := c.Runtime()
	if rt.Provider.Custom && len(rt.Provider.Models) == 0 {
		// A server of the user's without a models list took its first
		// model: show the others.
		fmt.Fprintf(out, "provider: %s · model %s (the server's first)\n", rt.Provider.Name, rt.Model)
		return Outcome{Action: ActPickModel}, nil
	}
	fmt.Fprintf(out, "provider: %s · model %s\n", rt.Provider.Name, rt.Model)
	return Outcome{}, nil
}

// ModelLine formats one model for lists and pickers: id, FREE or price,
// context window.
func ModelLine(m catalog.Model) string {
	parts := []string{m.ID}
	if l := catalog.PriceLabel(m); l != "" {
		parts = append(parts, l)
	}
	if l := catalog.ContextLabel(m.ContextWindow); l != "" {
		parts = append(parts, l+" ctx")
	}
	return strings.Join(parts, "  ")
}

func cmdModels(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	ml, err := c.Models(ctx, "", false)
	if err != nil {
		return Outcome{}, err
	}
	n := 0
	for _, m := range ml.Models {
		if arg != "" && !strings.Contains(strings.ToLower(m.ID+" "+m.Name), strings.ToLower(arg)) {
			continue
		}
		mark := " "
		if m.ID == c.Runtime().Model {
			mark = "*"
		}
		fmt.Fprintf(out, "%s %s\n", mark, ModelLine(m))
		n++
	}
	if n == 0 {
		fmt.Fprintf(out, "no %s model matches %q\n", c.Runtime().Provider.Name, arg)
	}
	if ml.Note != "" {
		fmt.Fprintf(out, "(%s)\n", ml.Note)
	}
	return Outcome{}, nil
}

func cmdSandbox(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	if arg != "" {
		if err := c.SetSandbox(ctx, arg); err != nil {
			return Outcome{}, err
		}
	}
	WriteSandbox(out, c.Sandbox())
	if arg != "" && c.Sandbox().Mode == "off" {
		fmt.Fprintln(out, "warning: commands now run without the OS sandbox: they can write anywhere you can and reach the network")
	}
	return Outcome{}, nil
}

// WriteSandbox prints the sandbox line of /sandbox: the mode, how
// commands are isolated and whether they reach the network, then the
// reason when they are not sandboxed although the default asked for it.
func WriteSandbox(out io.Writer, i app.SandboxInfo) {
	network := "network off"
	if i.Network {
		network = "network on"
	}
	if i.Mode == "off" {
		fmt.Fprintf(out, "sandbox: off · %s\n", i.Method())
	} else {
		fmt.Fprintf(out, "sandbox: %s · %s · %s\n", i.Mode, i.Method(), network)
	}
	if i.Notice != "" {
		fmt.Fprintln(out, i.Notice)
	}
}

// ModeChoice is a permission mode /mode offers, with what it lets run
// without asking.
type ModeChoice struct{ Name, Help string }

// modeHelp says what permission mode m lets run without asking.
func modeHelp(m string) string {
	switch m {
	case "plan":
		return "read-only: the model reads and plans; changes and other commands are refused"
	case "ask":
		return "reads and read-only commands run; every change and other command asks"
	case "auto-edit":
		return "file changes in the workspace run too; other commands ask"
	case "yolo":
		return "every tool call runs without asking (deny rules and safe_mode still apply)"
	}
	return ""
}

// ModeChoices are the permission modes in the order /mode offers them:
// app.Modes's, the narrowest first.
func ModeChoices() []ModeChoice {
	var out []ModeChoice
	for _, m := range app.Modes() {
		out = append(out, ModeChoice{m, modeHelp(m)})
	}
	return out
}

// cmdMode sets the permission mode, or without an argument offers the
// modes to pick (ActPickMode). A conversation mode (round-robin,
// sequential, parallel, single: Nexus Code's /mode) is /multi MODE, and
// the reply says so; no permission mode shares a name with one.
func cmdMode(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	if arg == "" {
		return Outcome{Action: ActPickMode}, nil
	}
	if _, err := multi.ParseMode(arg); err == nil {
		fmt.Fprintf(out, "/mode %s is the conversation mode: /multi %s (/mode alone picks the permission mode)\n", arg, arg)
		return cmdMulti(ctx, c, arg, out)
	}
	if err := c.SetMode(ctx, arg); err != nil {
		return Outcome{}, err
	}
	fmt.Fprintf(out, "permission mode: %s\n", c.Mode())
	if c.Mode() == "yolo" {
		fmt.Fprintln(out, "warning: yolo runs every tool call without asking (deny rules and safe_mode still apply)")
	}
	return Outcome{}, nil
}

func cmdTools(_ context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	if c.Engine() == nil || c.Engine().Tools == nil {
		fmt.Fprintln(out, "no tools in this session")
		return Outcome{}, nil
	}
	for _, t := range c.Engine().Tools.Specs() {
		fmt.Fprintf(out, "  %-26s %s\n", t.Name, firstSentence(t.Description))
	}
	for _, t := range c.Engine().Config.EngineTools {
		fmt.Fprintf(out, "  %-26s %s\n", t.Spec.Name, firstSentence(t.Spec.Description))
	}
	fmt.Fprintf(out, "  %-26s %s\n", "todo_write", "keep the task plan (always offered)")
	return Outcome{}, nil
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > 90 {
		s = s[:87] + "..."
	}
	return s
}

func cmdClear(ctx context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	if err := c.NewSession(ctx); err != nil {
		return Outcome{}, err
	}
	fmt.Fprintf(out, "new session %s\n", c.Session().ID)
	return Outcome{Action: ActClearScreen}, nil
}

func cmdCompact(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	return Outcome{}, slash.Compact(ctx, c.live, arg, out)
}

// FormatCost formats a cost in USD: "$0.0123", "$1.20", "$0" for nothing.
// It is [format.FormatCost], kept here for this package's callers.
func FormatCost(usd float64) string { return format.FormatCost(usd) }

// EstimateTokens estimates the prompt size of the session in tokens (4
// bytes a token), system prompt included.
func (c *Controller) EstimateTokens() int {
	n := len(c.Engine().Config.System)
	for _, m := range c.Session().Messages {
		for _, p := range m.Parts {
			n += len(p.Text)
			if p.ToolCall != nil {
				n += len(p.ToolCall.Arguments) + len(p.ToolCall.Name)
			}
			if p.ToolResult != nil {
				n += len(p.ToolResult.Content)
			}
		}
	}
	return n / 4
}

func cmdContext(_ context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	est := c.EstimateTokens()
	w := c.Engine().Config.Model.ContextWindow
	fmt.Fprintf(out, "%d messages · about %d tokens", len(c.Session().Messages), est)
	if w > 0 {
		fmt.Fprintf(out, " of %s (%.0f%%); compaction at %.0f%%", catalog.ContextLabel(w), 100*float64(est)/float64(w), 100*compactAt(c))
	} else {
		fmt.Fprint(out, " (context window unknown)")
	}
	fmt.Fprintln(out)
	return Outcome{}, nil
}

func compactAt(c *Controller) float64 {
	if t := c.Engine().Config.CompactAt; t > 0 && t <= 1 {
		return t
	}
	return 0.85
}

func cmdSummary(ctx context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	users, answers := 0, 0
	tools := map[string]int{}
	files := map[string]bool{}
	for _, m := range c.Session().Messages {
		switch m.Role {
		case llm.RoleUser:
			if m.Text() != "" {
				users++
			}
		case llm.RoleAssistant:
			if m.Text() != "" {
				answers++
			}
		}
		for _, tc := range m.ToolCalls() {
			tools[tc.Name]++
			if p := pathArg(tc.Arguments); p != "" && isWriteTool(tc.Name) {
				files[p] = true
			}
		}
	}
	fmt.Fprintf(out, "session %s · %s/%s · %s\n", c.Session().ID, c.Runtime().Provider.Name, c.Runtime().Model, c.Session().Workspace)
	fmt.Fprintf(out, "%d prompts · %d answers · %d messages\n", users, answers, len(c.Session().Messages))
	if len(tools) > 0 {
		var names []string
		for n, k := range tools {
			names = append(names, fmt.Sprintf("%s ×%d", n, k))
		}
		sort.Strings(names)
		fmt.Fprintf(out, "tools: %s\n", strings.Join(names, ", "))
	}
	if len(files) > 0 {
		var fs []string
		for f := range files {
			fs = append(fs, f)
		}
		sort.Strings(fs)
		fmt.Fprintf(out, "files changed: %s\n", strings.Join(fs, ", "))
	}
	u := c.Session().Usage
	fmt.Fprintf(out, "%d tokens in · %d out · %s\n", u.InputTokens, u.OutputTokens, FormatCost(c.Session().CostUSD))
	if len(c.Session().Todos) > 0 {
		done := 0
		for _, t := range c.Session().Todos {
			if t.Status == "completed" {
				done++
			}
		}
		fmt.Fprintf(out, "todos: %d/%d done\n", done, len(c.Session().Todos))
	}
	writeSummary(ctx, c, out)
	return Outcome{}, nil
}

func isWriteTool(name string) bool {
	switch name {
	case "write_file", "edit_file", "multi_edit", "apply_patch", "delete_file", "move_file":
		return true
	}
	return false
}

func cmdUndo(ctx context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	restored, err := c.svc.Undo(ctx, c.Session().ID)
	if err != nil {
		return Outcome{}, err
	}
	if len(restored) == 0 {
		fmt.Fprintln(out, "nothing to undo")
	}
	for _, line := range UndoLines(restored) {
		fmt.Fprintln(out, line)
	}
	if line := c.tasks.undoImplementation(ctx); line != "" {
		fmt.Fprintln(out, line)
	}
	return Outcome{}, nil
}

// UndoLines says what undo did to each file: "restored PATH", or
// "deleted PATH (created in that turn)".
func UndoLines(undone []session.Undone) []string {
	lines := make([]string, len(undone))
	for i, u := range undone {
		if u.Deleted {
			lines[i] = "deleted " + u.Path + " (created in that turn)"
		} else {
			lines[i] = "restored " + u.Path
		}
	}
	return lines
}

func cmdSessions(ctx context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	list, err := c.Store().List(ctx, session.ListOptions{Workspace: c.Runtime().Workspace, Limit: 20})
	if err != nil {
		return Outcome{}, err
	}
	if len(list) == 0 {
		fmt.Fprintln(out, "no sessions in this workspace yet")
	}
	for _, s := range list {
		mark := " "
		if s.ID == c.Session().ID {
			mark = "*"
		}
		title := s.Title
		if title == "" {
			title = "(empty)"
		}
		fmt.Fprintf(out, "%s %s  %s  %3d msgs  %s\n", mark, s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Messages, title)
	}
	return Outcome{}, nil
}

func cmdResume(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	if arg == "" {
		list, err := c.Store().List(ctx, session.ListOptions{Workspace: c.Runtime().Workspace, Limit: 10})
		if err != nil {
			return Outcome{}, err
		}
		for _, s := range list {
			if s.ID != c.Session().ID && s.Messages > 0 {
				arg = s.ID
				break
			}
		}
		if arg == "" {
			fmt.Fprintln(out, "no other session to resume: /sessions lists them")
			return Outcome{}, nil
		}
	}
	if err := c.Resume(ctx, arg); err != nil {
		return Outcome{}, err
	}
	rt := c.Runtime()
	fmt.Fprintf(out, "resumed session %s (%d messages) on %s/%s\n", c.Session().ID, len(c.Session().Messages), rt.Provider.Name, rt.Model)
	if last := lastText(c.Session().Messages); last != "" {
		fmt.Fprintf(out, "last answer: %s\n", oneLine(last, 200))
	}
	return Outcome{}, nil
}

func lastText(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant && msgs[i].Text() != "" {
			return msgs[i].Text()
		}
	}
	return ""
}

// oneLine collapses whitespace and cuts s to max runes (with "…").
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}

func cmdExport(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	path := arg
	if path == "" {
		path = "aidex-" + c.Session().ID + ".md"
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.Runtime().Workspace, path)
	}
	format := session.FormatMarkdown
	if strings.EqualFold(filepath.Ext(path), ".json") {
		format = session.FormatJSON
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return Outcome{}, fmt.Errorf("export: %w", err)
	}
	err = c.Store().Export(ctx, c.Session().ID, format, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(out, "exported to %s\n", path)
	return Outcome{}, nil
}

// maxLoad bounds /load and @file attachments, in bytes.
const maxLoad = 256 << 10

func cmdLoad(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	if arg == "" {
		return Outcome{}, errors.New("name a file or web page: /load FILE, /load https://...")
	}
	if isURL(arg) {
		return loadURL(ctx, c, arg, out)
	}
	path := arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.Runtime().Workspace, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Outcome{}, fmt.Errorf("load: %w", err)
	}
	if isDocument(arg, data) {
		return loadDocument(ctx, c, path, arg, out)
	}
	if len(data) > maxLoad {
		return Outcome{}, fmt.Errorf("load: %s is %d KB; the limit is %d KB", arg, len(data)>>10, maxLoad>>10)
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return Outcome{}, fmt.Errorf("load: %s is empty", arg)
	}
	return Outcome{Prompt: text}, nil
}

func cmdConfig(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	key, value, hasValue := strings.Cut(arg, " ")
	switch {
	case key == "":
		for _, e := range config.List(c.Runtime().Config) {
			if e.Value != "" {
				fmt.Fprintf(out, "  %-28s %-30s %s\n", e.Key, e.Value, e.Source)
			}
		}
		fmt.Fprintf(out, "(global file: %s; /config KEY VALUE sets a key there)\n", c.Runtime().Config.Paths.ConfigFile)
	case !hasValue:
		e, err := config.Get(c.Runtime().Config, key)
		if err != nil {
			return Outcome{}, err
		}
		fmt.Fprintf(out, "%s = %s (%s)\n", e.Key, e.Value, e.Source)
	default:
		path := c.Runtime().Config.Paths.ConfigFile
		warning, err := KeyWarning(config.Set(path, key, strings.TrimSpace(value), wire.ConfigFormats()...))
		if err != nil {
			return Outcome{}, err
		}
		if warning != "" {
			fmt.Fprintf(out, "warning: %s\n", warning)
		}
		if err := c.Reload(ctx); err != nil {
			return Outcome{}, fmt.Errorf("%s set in %s, but reloading failed: %w", key, path, err)
		}
		fmt.Fprintf(out, "%s set in %s\n", key, path)
	}
	return Outcome{}, nil
}
