package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// Options configure Tools.
type Options struct {
	// Family is the model family directory of the memory tool; use
	// Family(provider, model). Empty means "other".
	Family string
	// GlobalDir is the global memory directory (GlobalDir(configDir));
	// "" disables global memories (save_memory with scope "global" fails).
	GlobalDir string
	// Now is the clock (nil = time.Now).
	Now func() time.Time
}

// Tools returns the memory tools: memory (kind.Write; "full" profile, its
// schema is large), save_memory (kind.Write, standard profile) and
// load_memory (kind.Read, standard profile). The project memory lives in the
// session workspace (tools.Env.Workspace.Root()). Register them with
// tools.Registry.Register.
func Tools(o Options) []tools.Def {
	if o.Family == "" || o.Family == SharedDir {
		o.Family = "other"
	}
	return []tools.Def{
		tools.Define(tools.Spec{Name: "memory", Kind: kind.Write, Aliases: []string{"memory_tool"},
			Description: "Your persistent memory across sessions: a small file tree at /memories (yours) and /memories/shared (seen by every model). " +
				"Commands: view (file or directory), create (path, file_text), str_replace (path, old_str, new_str), insert (path, insert_line, insert_text), delete (path), rename (path, new_path). " +
				"View /memories at the start of a task; record progress and lessons learned as you go.", Bookkeeping: true},
			func(ctx context.Context, env *tools.Env, a memoryArgs) tools.Result { return o.memoryTool(ctx, env, a) }),
		tools.Define(tools.Spec{Name: "save_memory", Kind: kind.Write, Standard: true, Aliases: []string{"remember", "add_memory"},
			Description: "Save a short fact or preference to remember in later sessions (project scope by default; global for every project).", Bookkeeping: true},
			func(ctx context.Context, env *tools.Env, a saveArgs) tools.Result { return o.saveTool(ctx, env, a) }),
		tools.Define(tools.Spec{Name: "load_memory", Kind: kind.Read, Standard: true, Aliases: []string{"recall", "search_memory"},
			Description: "Find saved memories, most recent first, by text query and/or category.", Bookkeeping: true},
			func(ctx context.Context, env *tools.Env, a loadArgs) tools.Result { return o.loadTool(ctx, env, a) }),
	}
}

type memoryArgs struct {
	Command    string `json:"command" jsonschema:"view, create, str_replace, insert, delete or rename"`
	Path       string `json:"path,omitempty" jsonschema:"Memory path, e.g. /memories/notes.md or /memories/shared/team.md" default:"\"/memories\""`
	FileText   string `json:"file_text,omitempty" jsonschema:"create: the whole file content"`
	OldStr     string `json:"old_str,omitempty" jsonschema:"str_replace: exact text to replace (must occur once)"`
	NewStr     string `json:"new_str,omitempty" jsonschema:"str_replace: replacement text"`
	InsertLine int    `json:"insert_line,omitempty" jsonschema:"insert: line number to insert after (0 = top)"`
	InsertText string `json:"insert_text,omitempty" jsonschema:"insert: text to insert"`
	NewPath    string `json:"new_path,omitempty" jsonschema:"rename: the new memory path"`
}

type saveArgs struct {
	Content  string   `json:"content" jsonschema:"The fact or preference, one or two sentences"`
	Category string   `json:"category,omitempty" jsonschema:"e.g. preference, project, decision, person" default:"\"general\""`
	Tags     []string `json:"tags,omitempty" jsonschema:"Keywords for finding it later"`
	Scope    string   `json:"scope,omitempty" jsonschema:"project (this workspace) or global (every project)" default:"\"project\""`
}

type loadArgs struct {
	Query    string `json:"query,omitempty" jsonschema:"Words that must all appear (content, category or tags)"`
	Category string `json:"category,omitempty" jsonschema:"Only this category"`
	Limit    int    `json:"limit,omitempty" jsonschema:"Most entries to return" default:"20"`
}

func workspaceOf(env *tools.Env) (string, *tools.Result) {
	if env == nil || env.Workspace == nil {
		r := tools.Failf(tools.CategoryExecution, "internal error: no workspace configured for memory tools")
		return "", &r
	}
	return env.Workspace.Root(), nil
}

func (o Options) memoryTool(ctx context.Context, env *tools.Env, a memoryArgs) tools.Result {
	ws, fail := workspaceOf(env)
	if fail != nil {
		return *fail
	}
	if err := ctx.Err(); err != nil {
		return tools.Failf(tools.CategoryExecution, "memory cancelled: %v", err)
	}
	t := tree{workspace: ws, family: o.Family}
	p, err := checkPath(a.Path, o.Family)
	if err != nil {
		return tools.Failf(tools.CategorySecurity, "memory refused: %v", err)
	}
	var out string
	switch strings.ToLower(strings.TrimSpace(a.Command)) {
	case "view":
		out, err = t.view(p)
	case "create":
		out, err = t.create(p, a.FileText)
	case "str_replace":
		out, err = t.strReplace(p, a.OldStr, a.NewStr)
	case "insert":
		out, err = t.insert(p, a.InsertLine, a.InsertText)
	case "delete":
		out, err = t.remove(p)
	case "rename":
		if a.NewPath == "" {
			return tools.Failf(tools.CategoryValidation, "rename needs new_path, the new memory path")
		}
		to, perr := checkPath(a.NewPath, o.Family)
		if perr != nil {
			return tools.Failf(tools.CategorySecurity, "memory refused: new_path: %v", perr)
		}
		out, err = t.rename(p, to)
	default:
		return tools.Failf(tools.CategoryValidation, "unknown memory command %q: use view, create, str_replace, insert, delete or rename", clip(a.Command))
	}
	if err != nil {
		return tools.Failf(category(err), "memory %s: %v", a.Command, err)
	}
	return tools.Success(out, &tools.Meta{Path: p.virtual(o.Family)})
}

// category classifies a memory error.
func category(err error) tools.Category {
	switch {
	case errors.Is(err, errNotFound), errors.Is(err, ErrNoEntry):
		return tools.CategoryNotFound
	case errors.Is(err, errEscape), errors.Is(err, ErrBadPath), isEscape(err):
		return tools.CategorySecurity
	}
	return tools.CategoryValidation
}

// isEscape reports an os.Root refusal of a path leading outside the root.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

func (o Options) store(env *tools.Env) (*Store, *tools.Result) {
	ws, fail := workspaceOf(env)
	if fail != nil {
		return nil, fail
	}
	return NewStore(ws, o.GlobalDir, o.Now), nil
}

func (o Options) saveTool(ctx context.Context, env *tools.Env, a saveArgs) tools.Result {
	s, fail := o.store(env)
	if fail != nil {
		return *fail
	}
	scope := Scope(strings.ToLower(strings.TrimSpace(a.Scope)))
	if scope == "" {
		scope = ScopeProject
	}
	if scope != ScopeProject && scope != ScopeGlobal {
		return tools.Failf(tools.CategoryValidation, "unknown scope %q: use project or global", clip(a.Scope))
	}
	e, err := s.Save(ctx, scope, Entry{Content: a.Content, Category: a.Category, Tags: a.Tags})
	if err != nil {
		cat := tools.CategoryValidation
		if isEscape(err) {
			cat = tools.CategorySecurity
		}
		return tools.Failf(cat, "save_memory: %v", err)
	}
	return tools.Success(fmt.Sprintf("saved %s memory %s", scope, e.ID), nil)
}

func (o Options) loadTool(ctx context.Context, env *tools.Env, a loadArgs) tools.Result {
	s, fail := o.store(env)
	if fail != nil {
		return *fail
	}
	limit := min(max(a.Limit, 1), MaxLimit)
	es, err := s.List(ctx, Query{Text: a.Query, Category: a.Category, Limit: limit})
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "load_memory: %v", err)
	}
	if len(es) == 0 {
		return tools.Success("no memories match", &tools.Meta{Matches: 0})
	}
	var b strings.Builder
	for _, e := range es {
		b.WriteString(FormatEntry(e))
		b.WriteByte('\n')
	}
	return tools.Success(b.String(), &tools.Meta{Matches: len(es)})
}

// FormatEntry renders an entry on one line for tools and the CLI:
// "ID  DATE  SCOPE  [category] content  #tag #tag  (pinned)".
func FormatEntry(e Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  %-7s ", e.ID, e.Timestamp.Local().Format("2006-01-02 15:04"), e.Scope)
	if e.Category != "" {
		fmt.Fprintf(&b, " [%s]", e.Category)
	}
	b.WriteString(" " + strings.Join(strings.Fields(e.Content), " "))
	for _, t := range e.Tags {
		b.WriteString("  #" + t)
	}
	if e.Pinned {
		b.WriteString("  (pinned)")
	}
	return b.String()
}
