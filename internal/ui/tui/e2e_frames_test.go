package tui_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The frame tests read the whole scrollback (capture-pane -S -): a redraw
// that starts too low, or clears the screen from its top-left corner
// (which tmux moves into the history), leaves copies of old frames there.

// spinnerFrames are the spinner's frames: none may stay in the scrollback.
const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// count is how many lines of s contain sub.
func count(s, sub string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}

// rules is how many lines of s are the input's rule.
func rules(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && strings.Trim(l, "─") == "" {
			n++
		}
	}
	return n
}

// The command's card runs for half a second after the approval, so the
// frame shrinks (the approval box closes) before the card is printed.
func TestE2EFramesApprovalLeavesNoPieces(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Text: "I will write the file.", Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"hello.txt","content":"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"sleep 0.5 && touch made-by-test"}`}}},
		llmtest.Turn{Text: "I wrote hello.txt."})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	e.typeLine("create hello.txt")
	e.waitFor("Allow write_file hello.txt?", "1. Yes (y)")
	e.answer("y")
	e.waitFor("Allow run_command?", "$ sleep 0.5 && touch made-by-test")
	e.answer("y")
	e.waitFor("I wrote hello.txt.")
	e.poll("the run's end", func() bool { return !strings.Contains(e.statusLine(), "Esc stops") })
	s := e.scrollback()
	require.NotContains(t, s, "Allow write_file", "the approval box leaves nothing behind")
	require.NotContains(t, s, "Allow run_command", "the approval box leaves nothing behind")
	require.NotContains(t, s, "1. Yes (y)")
	require.False(t, strings.ContainsAny(s, spinnerFrames), "no frozen spinner line")
	require.Equal(t, 1, count(s, "write_file hello.txt"), "one card for the call")
	require.Equal(t, 1, count(s, "run_command $ sleep 0.5 && touch made-by-test"), "one card for the call")
	require.Equal(t, 1, rules(s), "one input frame")
}

func TestE2EFramesModelPickerEscLeavesNoHeader(t *testing.T) {
	e := start(t, llmtest.NewScript(t), "")
	e.waitFor("fake/scripted-a")
	e.typeLine("/model")
	e.waitFor("Model of fake", "scripted-b")
	e.keys("Escape")
	e.poll("the picker closed", func() bool { return strings.Contains(e.screen(), "Ask anything") })
	s := e.scrollback()
	require.NotContains(t, s, "Model of fake")
	require.NotContains(t, s, "search:")
	require.Equal(t, 1, rules(s), "one input frame")
}

func TestE2EFramesFilteringDrawsTheListOnce(t *testing.T) {
	e := startWith(t, llmtest.NewScript(t), keyedConfig)
	e.waitFor("Pick a model provider", "llm7")
	for i, r := range "fake" {
		e.keys("-l", string(r))
		want := "search: " + "fake"[:i+1] + "█"
		e.poll(strconv.Quote(want), func() bool { return strings.Contains(e.screen(), want) })
	}
	s := e.scrollback()
	require.Equal(t, 1, count(s, "Pick a model provider"), "the picker is drawn once")
	require.Equal(t, 1, count(s, "search:"))
	require.NotContains(t, s, "llm7", "the filtered-out providers are gone")
}

func TestE2EFramesStatusDropsStopping(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Partial.", Hang: true})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	e.typeLine("tell me a long story")
	<-script.Started
	e.waitFor("Partial.")
	e.keys("Escape")
	e.waitFor("stopped; the partial answer is kept")
	e.poll("a status line without stopping…", func() bool {
		st := e.statusLine()
		return strings.HasPrefix(st, "fake/scripted-a") && !strings.Contains(st, "stopping")
	})
}

// cursor returns the pane's cursor row.
func (e *e2e) cursor() int {
	out, err := exec.Command("tmux", "-L", e.socket, "display", "-p", "-t", "t", "#{cursor_y}").Output()
	require.NoError(e.t, err)
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	require.NoError(e.t, err)
	return n
}

// inputRow returns the screen row of the input line ("› Ask anything"),
// -1 when it is not on the screen.
func (e *e2e) inputRow() int {
	out, err := exec.Command("tmux", "-L", e.socket, "capture-pane", "-p", "-t", "t").Output()
	require.NoError(e.t, err)
	for i, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "› Ask anything") {
			return i
		}
	}
	return -1
}

func TestE2EFramesCursorInTheInputAfterTasks(t *testing.T) {
	e := start(t, llmtest.NewScript(t), "")
	e.waitFor("fake/scripted-a")
	e.typeLine("/tasks")
	e.waitFor("Ralph tasks")
	e.keys("Escape")
	e.poll("the chat and the /tasks line", func() bool { return e.inputRow() >= 0 && count(e.screen(), "› /tasks") == 1 })
	e.poll("the cursor in the input", func() bool { return e.cursor() == e.inputRow() })
}
