package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/ui/commands"
)

// pickServerModel is the picker kind of the /provider → custom flow's
// model list; the picker's Data is the server's base URL.
const pickServerModel = "server-model"

// serverURLMsg is the base URL typed at the /provider → custom prompt.
type serverURLMsg struct{ url string }

// askServerURL opens the prompt for a server's base URL (the /provider →
// custom flow): Enter lists the server's models to pick one.
func (m setupCtl) askServerURL(note string) {
	m.keys = &keyPrompt{server: true}
	if note == "" {
		note = "an OpenAI-compatible server (llama.cpp, LM Studio, vLLM, a gateway): its base URL usually ends in /v1"
	}
	m.note(note)
}

// serverURL asks the server at url for its models: a server already
// saved as a provider is switched to; else the model picker opens (its
// choice saves the provider, see serverModelPicked). A server that does
// not answer asks for the URL again, saying why.
func (m setupCtl) serverURL(url string) tea.Cmd {
	rt := m.runtime()
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		name, existing, models, err := commands.ServerModels(ctx, rt, url)
		return jobDoneMsg{then: func(m *model) tea.Cmd {
			switch {
			case err != nil:
				m.setup.askServerURL("error: " + err.Error())
				return nil
			case existing:
				m.commit(m.st.paint(m.st.faint, fmt.Sprintf("%s is provider %s already", url, name)))
				return m.setup.switchProvider(name)
			}
			p := &picker{Title: fmt.Sprintf("Model of %s (saved as [providers.%s], no key):", url, name), Kind: pickServerModel, Data: url}
			for _, id := range models {
				p.Items = append(p.Items, pickItem{Label: id, Value: id})
			}
			m.picker = p
			return nil
		}}
	})
}

// serverModelPicked saves the server at url with model as
// [providers.NAME] in the global config file and switches to it (during
// onboarding: starts the session with it).
func (m setupCtl) serverModelPicked(url, model string) tea.Cmd {
	rt := m.runtime()
	name, err := commands.AddServer(rt, url, model)
	if err != nil {
		m.commit(m.st.paint(m.st.red, "error: "+err.Error()))
		return nil
	}
	m.commit(m.st.paint(m.st.faint, fmt.Sprintf("saved [providers.%s] (%s, model %s) in %s", name, url, model, rt.Config.Paths.ConfigFile)))
	if m.ctrl == nil {
		return m.setup.startSession(name)
	}
	ctrl := m.ctrl
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		err := ctrl.UseServer(ctx, name, model)
		out := ""
		if err == nil {
			out = fmt.Sprintf("provider: %s · model %s", ctrl.Runtime().Provider.Name, ctrl.Runtime().Model)
		}
		return jobDoneMsg{out: out, err: err}
	})
}
