package app

import (
	"context"
	"strings"
)

// Architect returns the architect and editor models of architect mode
// ("PROVIDER/MODEL"; editor "" is the main model), and on false when
// architect mode is off (architect_model unset or "off").
func (rt *Runtime) Architect() (architect, editor string, on bool) {
	a := strings.TrimSpace(rt.Config.ArchitectModel)
	if a == "" || a == "off" {
		return "", "", false
	}
	if other, err := rt.modelRoom().withModel(a, "architect_model"); err == nil {
		a = other.modelRoom().modelID()
	}
	e := rt.modelRoom().modelID()
	if s := strings.TrimSpace(rt.Config.EditorModel); s != "" {
		if other, err := rt.modelRoom().withModel(s, "editor_model"); err == nil {
			e = other.modelRoom().modelID()
		}
	}
	return a, e, true
}

// SetArchitect turns architect mode on for the sessions' next runs, with
// architect planning and editor ("" for the main model) editing, or off
// with architect "off". The choice is kept as command-line flags, so it
// outlasts reloads. Errors: a model whose provider needs a key it does
// not have, the reload's.
func (s *Service) SetArchitect(ctx context.Context, architect, editor string) (*Runtime, error) {
	architect, editor = strings.TrimSpace(architect), strings.TrimSpace(editor)
	rt := s.Runtime()
	if architect != "off" {
		if _, err := rt.modelRoom().withModel(architect, "architect"); err != nil {
			return nil, err
		}
		if editor != "" {
			if _, err := rt.modelRoom().withModel(editor, "editor"); err != nil {
				return nil, err
			}
		}
	} else {
		editor = ""
	}
	return s.Reload(ctx, map[string]string{"architect_model": architect, "editor_model": editor})
}
