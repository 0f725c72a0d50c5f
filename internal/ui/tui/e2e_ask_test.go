package tui_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

const askChoice = `{"questions":[{"question":"Which database should I use?","header":"DB","options":[{"label":"Postgres","description":"a server"},{"label":"SQLite","description":"embedded"},{"label":"MySQL"}]}]}`

func TestE2EAskUserChoiceWithArrowsAndEnter(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: askChoice}}},
		llmtest.Turn{Text: "Going with your pick."})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	e.typeLine("set up storage")
	e.waitFor("The model asks", "Which database should I use?", "❯ Postgres", "Esc decline")
	e.answer("Down")
	e.waitFor("❯ SQLite")
	e.keys("Enter")
	e.waitFor("Going with your pick.")
	reqs := script.Requests()
	last := string(reqs[len(reqs)-1])
	require.Contains(t, last, `\"Which database should I use?\": \"SQLite\"`, "the picked option goes to the model as the tool result")
	require.False(t, strings.Contains(last, "declined"), last)
}

func TestE2EAskUserEscDeclines(t *testing.T) {
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: `{"questions":[{"question":"Delete the old logs?","kind":"confirm"}]}`}}},
		llmtest.Turn{Text: "I will decide myself."})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a")
	e.typeLine("tidy up")
	e.waitFor("Delete the old logs?", "[y] yes")
	e.answer("Escape")
	e.waitFor("I will decide myself.")
	reqs := script.Requests()
	require.Contains(t, string(reqs[len(reqs)-1]), "The user declined to answer")
}
