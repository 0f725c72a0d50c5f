package web

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/zelvior/aidex/internal/app/toolcall"
)

// ToolView is one tool in GET /api/tools: its schema, kind, and whether
// web chats offer it (see toolcall.Info).
type ToolView = toolcall.Info

// handleTools lists the tools: GET /api/tools, {"tools": [toolcall.Info]}
// (schema, kind, and whether web chats offer it).
func (s runtimeAPI) handleTools(w http.ResponseWriter, r *http.Request) {
	list, err := s.Runtime().ToolList(true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tools": list})
}

// handleMCP answers GET /api/mcp: {"servers": [...]}, each configured MCP
// server's name, transport, status (ready, failed, disabled), error, tools
// (name, description), definition_tokens and prompts. The servers start at
// the first call (or the first chat) and keep running.
func (s runtimeAPI) handleMCP(w http.ResponseWriter, r *http.Request) {
	type tool struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	type server struct {
		Name             string   `json:"name"`
		Transport        string   `json:"transport"`
		Status           string   `json:"status"`
		Error            string   `json:"error,omitempty"`
		Tools            []tool   `json:"tools"`
		DefinitionTokens int      `json:"definition_tokens"`
		Prompts          []string `json:"prompts"`
	}
	out := []server{}
	for _, st := range s.svc.MCPStatus(r.Context()) {
		e := server{Name: st.Name, Transport: st.Transport, Status: string(st.State), Error: st.Error,
			DefinitionTokens: st.DefinitionTokens, Tools: []tool{}, Prompts: append([]string{}, st.Prompts...)}
		for _, t := range st.Tools {
			e.Tools = append(e.Tools, tool{t.Name, t.Description})
		}
		out = append(out, e)
	}
	writeJSON(w, http.StatusOK, map[string]any{"servers": out})
}

// handleTool runs one tool directly, as the model would: POST /api/tool
// {"tool": NAME, "params": {...}}, through the engine's own pipeline
// (app.Runtime.CallTool) with the web confinement. Shell and
// background-process tools are refused (403) unless web_allow_shell_tools
// is set; what the permission policy denies (confinement, protected
// paths, deny rules, safe_mode) is refused (403); what it would ask about
// runs, since the request is the authenticated user's own action, except
// changes to protected paths. Answers the tool's result: 200 (ok true or
// an execution failure), 400 invalid arguments, 403 refused, 404 unknown
// tool.
func (s runtimeAPI) handleTool(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tool   string          `json:"tool"`
		Params json.RawMessage `json:"params"`
	}
	if !s.decodeBody(w, r, &req) {
		return
	}
	out, err := s.Runtime().CallTool(r.Context(), req.Tool, req.Params, toolcall.Options{Web: true, UserAction: true})
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	status := http.StatusOK
	switch out.Outcome {
	case toolcall.UnknownTool:
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown tool %q: GET /api/v1/tools lists them", req.Tool))
		return
	case toolcall.Refused:
		status = http.StatusForbidden
	case toolcall.Invalid:
		status = http.StatusBadRequest
	}
	writeJSON(w, status, out.Result)
}
