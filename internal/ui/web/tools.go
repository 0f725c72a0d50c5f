package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// ToolView is one tool in GET /api/tools: its schema, kind, and whether
// the web UI offers it (Available false: a shell tool without
// web_allow_shell_tools, or outside the tool profile).
type ToolView struct {
	tools.ToolSchema
	Kind      kind.Kind `json:"kind"`
	Available bool      `json:"available"`
}

// handleTools lists the tools: GET /api/tools.
func (s *Server) handleTools(w http.ResponseWriter, r *http.Request) {
	rt := s.Runtime()
	reg, closeTools, err := rt.Registry()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	defer closeTools()
	schemas, err := reg.Schemas(tools.Profile{Name: tools.ProfileFull})
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	prof := rt.Profile()
	out := make([]ToolView, 0, len(schemas))
	for _, sc := range schemas {
		d, _ := reg.Lookup(sc.Name)
		avail := reg.Allowed(prof, d.Name) && (!d.Shell || rt.Config.WebAllowShellTools)
		out = append(out, ToolView{ToolSchema: sc, Kind: d.Kind, Available: avail})
	}
	writeJSON(w, http.StatusOK, map[string]any{"tools": out})
}

// handleTool runs one tool directly, as the model would: POST /api/tool
// {"tool": NAME, "params": {...}}. The call is confined to the workspace
// like a web chat's. Shell and background-process tools are refused (403)
// unless web_allow_shell_tools is set; what the permission policy denies
// (confinement, protected paths, deny rules, safe_mode) is refused (403);
// what it would ask about runs, since the request is the authenticated
// user's own action. Answers the tool's result: 200 (ok true or an
// execution failure), 400 invalid arguments, 403 refused.
func (s *Server) handleTool(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Tool   string          `json:"tool"`
		Params json.RawMessage `json:"params"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if len(req.Params) == 0 || string(req.Params) == "null" {
		req.Params = json.RawMessage("{}")
	}
	rt := s.Runtime()
	reg, closeTools, err := rt.Registry()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	defer closeTools()
	d, ok := reg.Lookup(req.Tool)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown tool %q: GET /api/tools lists them", req.Tool))
		return
	}
	if d.Shell && !rt.Config.WebAllowShellTools {
		writeError(w, http.StatusForbidden, d.Name+" is not available in the web UI: set web_allow_shell_tools = true in the config file by hand to allow shell tools")
		return
	}
	p, err := reg.Prepare(d.Name, req.Params)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, tools.ErrorResult(err))
		return
	}
	ws, err := rt.NewWorkspace(true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	policy, err := rt.Policy(ws, true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	preq := app.PermissionRequest(p)
	v := policy.Check(preq)
	if v.Decision == permission.Deny {
		msg := v.Reason
		if v.Rule != "" {
			msg += " [" + v.Rule + "]"
		}
		writeJSON(w, http.StatusForbidden, tools.Failf(categoryOf(v), "%s", msg))
		return
	}
	if p.Def.Kind == kind.Write {
		for i, abs := range v.Resolved {
			if i < len(preq.Paths) && protectedWrite(ws, preq.Paths[i], abs) {
				writeJSON(w, http.StatusForbidden, tools.Failf(tools.CategorySecurity, "%s", protectedMessage(preq.Paths[i])))
				return
			}
		}
	}
	env := tools.NewEnv(ws)
	env.SkipReadCheck = true
	res := p.Run(r.Context(), env)
	status := http.StatusOK
	switch res.Category {
	case tools.CategorySecurity, tools.CategoryPermission:
		status = http.StatusForbidden
	case tools.CategoryValidation:
		status = http.StatusBadRequest
	}
	writeJSON(w, status, res)
}

func categoryOf(v permission.Verdict) tools.Category {
	if v.Rule == permission.RuleConfinement || strings.Contains(v.Rule, "protected") || v.Rule == permission.RuleInvalidPath {
		return tools.CategorySecurity
	}
	return tools.CategoryPermission
}
