package notify

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestSequenceChoice(t *testing.T) {
	const osc9 = "\x1b]9;aidex: hi\a"
	const osc777 = "\x1b]777;notify;aidex;hi\a"
	const osc99 = "\x1b]99;i=aidex:d=0;aidex\x1b\\\x1b]99;i=aidex:d=1:p=body;hi\x1b\\"
	cases := []struct {
		name, mode string
		env        func(string) string
		want       string
	}{
		{"auto unknown terminal rings", ModeAuto, env("TERM", "xterm-256color"), "\a"},
		{"empty mode is auto", "", env("TERM_PROGRAM", "iTerm.app"), osc9},
		{"auto iTerm2", ModeAuto, env("TERM_PROGRAM", "iTerm.app"), osc9},
		{"auto Windows Terminal", ModeAuto, env("WT_SESSION", "abc"), osc9},
		{"auto WezTerm", ModeAuto, env("TERM_PROGRAM", "WezTerm"), osc777},
		{"auto ghostty", ModeAuto, env("TERM", "xterm-ghostty"), osc777},
		{"auto foot", ModeAuto, env("TERM", "foot"), osc777},
		{"auto rxvt", ModeAuto, env("TERM", "rxvt-unicode-256color"), osc777},
		{"auto kitty", ModeAuto, env("KITTY_WINDOW_ID", "1", "TERM", "xterm-kitty"), osc99},
		{"auto in tmux rings", ModeAuto, env("TMUX", "/tmp/tmux-0/default,1,0", "LC_TERMINAL", "iTerm2"), "\a"},
		{"auto in screen rings", ModeAuto, env("STY", "1.pts", "TERM_PROGRAM", "iTerm.app"), "\a"},
		{"nil getenv rings", ModeAuto, nil, "\a"},
		{"bell", ModeBell, env("TERM_PROGRAM", "iTerm.app"), "\a"},
		{"osc unknown terminal is OSC 9", ModeOSC, env("TERM", "xterm"), osc9},
		{"osc foot", ModeOSC, env("TERM", "foot"), osc777},
		{"osc in tmux is wrapped", ModeOSC, env("TMUX", "x"), "\x1bPtmux;\x1b\x1b]9;aidex: hi\a\x1b\\"},
		{"off", ModeOff, env("TERM_PROGRAM", "iTerm.app"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, Notifier{Mode: c.mode, Getenv: c.env}.Sequence("aidex", "hi"))
		})
	}
}

func TestSequenceDropsControlCharacters(t *testing.T) {
	n := Notifier{Mode: ModeAuto, Getenv: env("TERM", "foot")}
	require.Equal(t, "\x1b]777;notify;a,b;xy\a", n.Sequence("a;b", "x\x1b\ay"))
}

func TestTurnEndedThreshold(t *testing.T) {
	n := Notifier{Mode: ModeBell, After: time.Minute}
	require.Empty(t, n.TurnEnded(59*time.Second), "a turn shorter than After is silent")
	require.Equal(t, "\a", n.TurnEnded(time.Minute))
	require.Empty(t, Notifier{Mode: ModeBell}.TurnEnded(DefaultAfter-time.Millisecond), "After 0 is DefaultAfter")
	require.Equal(t, "\a", Notifier{Mode: ModeBell}.TurnEnded(DefaultAfter))
	require.Empty(t, Notifier{Mode: ModeOff, After: time.Nanosecond}.TurnEnded(time.Hour))
	require.Contains(t, Notifier{Mode: ModeOSC, After: time.Second}.TurnEnded(75*time.Second+300*time.Millisecond), "finished after 1m15s")
}

func TestApproval(t *testing.T) {
	n := Notifier{Mode: ModeAuto, Getenv: env("TERM_PROGRAM", "iTerm.app")}
	require.Equal(t, "\x1b]9;aidex: approval needed: run_command\a", n.Approval("run_command"))
}

func TestQuestion(t *testing.T) {
	n := Notifier{Mode: ModeAuto, Getenv: env("TERM_PROGRAM", "iTerm.app")}
	require.Equal(t, "\x1b]9;aidex: the model asks you a question\a", n.Question())
	require.Empty(t, Notifier{Mode: ModeOff}.Question())
}
