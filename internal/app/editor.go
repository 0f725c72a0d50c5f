package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/tools"
)

// AddMCPServers adds MCP servers a front end was given (an editor's
// session/new mcpServers) to the configured ones; they start with the
// configured servers at the service's first session ([Service.MCP]). A
// server whose name is configured already replaces the configured one; a
// name added before is kept as it was (editors send the same servers with
// every session). Servers new after the first session started the
// servers are not started: the error names them.
func (s *Service) AddMCPServers(servers []config.MCPServer) error {
	s.mcp.mu.Lock()
	defer s.mcp.mu.Unlock()
	var added []config.MCPServer
	for _, sv := range servers {
		if !slices.ContainsFunc(s.mcp.extra, func(x config.MCPServer) bool { return x.Name == sv.Name }) {
			added = append(added, sv)
		}
	}
	if len(added) == 0 {
		return nil
	}
	if s.mcp.started {
		return fmt.Errorf("mcp servers %s not started: the MCP servers of this workspace are running already; restart the agent to add servers", serverNames(added))
	}
	s.mcp.extra = append(s.mcp.extra, added...)
	return nil
}

func serverNames(servers []config.MCPServer) string {
	s := ""
	for i, sv := range servers {
		if i > 0 {
			s += ", "
		}
		s += sv.Name
	}
	return s
}

// DenyAlways saves rule ("TOOL" or "TOOL(PATTERN)", the shape of an
// approval's suggested allow rule) as a deny rule of the project
// (<workspace>/.aidex/config.toml, permissions.deny) and reloads the
// runtime so that the sessions' next runs refuse such calls: the
// counterpart of answering "always" to an approval. Errors: a malformed
// rule, the file's I/O, the reload's.
func (s *Service) DenyAlways(ctx context.Context, rule string) error {
	rt := s.Runtime()
	file := config.ProjectConfigFile(rt.Workspace)
	if err := config.AddRule(file, "deny", rule); err != nil {
		return fmt.Errorf("save deny rule %s in %s: %w", rule, file, err)
	}
	if _, err := s.Reload(ctx, nil); err != nil {
		return fmt.Errorf("deny rule %s saved in %s, but the configuration does not load: %w", rule, file, err)
	}
	return nil
}

// editorFiles is an editor's file access for a session's file tools (ACP's
// fs/read_text_file and fs/write_text_file; the same methods as
// tools.Editor): text files are read through it, so unsaved buffers are
// seen, and changes are written through it, so they appear in the editor.
// Paths are absolute and reach it only after the workspace confinement
// and the permission policy judged the call. ok false: the disk is used.
type editorFiles interface {
	ReadText(ctx context.Context, abs string) (content []byte, ok bool, err error)
	WriteText(ctx context.Context, abs string, content []byte) (ok bool, err error)
}

// editorOf is o's editor as the tools' (a nil interface when there is
// none, never a typed nil).
func editorOf(o engineOptions) tools.Editor {
	if o.Editor == nil {
		return nil
	}
	return o.Editor
}
