package tui

import (
	"bytes"
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/zelvior/aidex/internal/ui/commands"
)

// askImageKey opens the prompt for the first image setting that is
// missing (commands.ActAskImageKey): the provider when none is set, then
// its credentials; "/image arg" runs again once all are stored
// (storeImageKey).
func (m setupCtl) askImageKey(arg string) tea.Cmd {
	todo := commands.MissingImageSettings(m.ctrl.Runtime())
	if len(todo) == 0 {
		m.commit(m.st.paint(m.st.red, "error: the image settings are incomplete: check image_provider, image_api_key and (Cloudflare) cloudflare_account_id (aidex config list)"))
		return nil
	}
	m.keys = &keyPrompt{image: &imageKeyAsk{todo: todo, arg: arg}}
	m.note(commands.ImageSettingsNote(todo))
	return nil
}

// storeImageKey stores value as the image setting on screen
// (ask.todo[0]) in the global config file, then asks for the next one
// (a chosen provider's credentials first) or,
// with all stored, reloads the configuration and runs "/image ARG" again
// as a job. An empty value or a config file that cannot be written ends
// the prompts with the error.
func (m setupCtl) storeImageKey(ask *imageKeyAsk, value string) tea.Cmd {
	rt := m.ctrl.Runtime()
	s := ask.todo[0]
	more, warning, err := commands.StoreImageSetting(rt, s.Key, value)
	if err != nil {
		m.note("")
		m.commit(m.st.paint(m.st.red, "error: "+err.Error()))
		return nil
	}
	m.commit(m.st.paint(m.st.faint, s.Key+" stored"))
	if warning != "" {
		m.commit(m.st.paint(m.st.yellow, "warning: "+warning))
	}
	if next := append(more, ask.todo[1:]...); len(next) > 0 {
		m.keys = &keyPrompt{image: &imageKeyAsk{todo: next, arg: ask.arg}}
		if len(more) > 0 {
			m.note(commands.ImageSettingsNote(more))
		}
		return nil
	}
	m.note("")
	ctrl, arg := m.ctrl, ask.arg
	return m.turn.runJob(func(ctx context.Context) jobDoneMsg {
		var b bytes.Buffer
		err := commands.RetryImage(ctx, ctrl, arg, &b)
		return jobDoneMsg{out: b.String(), err: err}
	})
}
