package plain

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// runAsking runs the line mode with its Asker on input against a scripted
// model and returns the output and the model's last request.
func runAsking(t *testing.T, input string, setup func(r *REPL, env map[string]string), turns ...llmtest.Turn) (string, string) {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, ""))
	var out sharedtest.Buffer
	r := New(strings.NewReader(input), &out, false)
	if setup != nil {
		setup(r, home.Env)
	}
	ctx := context.Background()
	svc, err := app.Start(ctx, app.StartOptions{Options: app.Options{Workspace: home.WS, Flags: map[string]string{}, Getenv: home.Getenv}})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	ctrl, err := commands.New(ctx, commands.Config{Service: svc, Session: sess, Approver: r.Approver(), Asker: r.Asker()})
	require.NoError(t, err)
	t.Cleanup(ctrl.Close)
	require.NoError(t, r.Run(ctx, ctrl, commands.Default()))
	reqs := script.Requests()
	return out.String(), string(reqs[len(reqs)-1])
}

const twoQuestions = `{"questions":[` +
	`{"question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite","description":"embedded"}]},` +
	`{"question":"Which extras?","multi_select":true,"options":[{"label":"auth"},{"label":"cache"},{"label":"queue"}]}]}`

func TestLineModeAnswersAskUserWithNumbers(t *testing.T) {
	out, last := runAsking(t, "set up\n9\n2\n1, 3\n", nil,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: twoQuestions}}},
		llmtest.Turn{Text: "Noted."})
	require.Contains(t, out, "1. Which database?")
	require.Contains(t, out, "2) SQLite — embedded")
	require.Contains(t, out, "type a number from 1 to 2", "an out-of-range number is explained and asked again")
	require.Contains(t, out, "Noted.")
	require.Contains(t, last, `\"Which database?\": \"SQLite\"`)
	require.Contains(t, last, `\"Which extras?\": \"auth\", \"queue\"`)
}

func TestLineModeDeclinesAskUser(t *testing.T) {
	_, last := runAsking(t, "go\n/decline\n", nil,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: `{"questions":[{"question":"Name?","kind":"text"}]}`}}},
		llmtest.Turn{Text: "ok"})
	require.Contains(t, last, "The user declined to answer")
}

func TestAskerKinds(t *testing.T) {
	info := agent.InteractionInfo{ID: "ia", Questions: []agent.Question{
		{Question: "Proceed?", Kind: agent.KindConfirm},
		{Question: "Title?", Kind: agent.KindText},
		{Question: "Which files?", Kind: agent.KindFiles},
	}}
	lines := []string{"maybe", "y", "My title", "a.go b.go"}
	var out sharedtest.Buffer
	a := &Asker{Printer: &Printer{Out: &out}, ReadLine: func(context.Context) (string, error) {
		l := lines[0]
		lines = lines[1:]
		return l, nil
	}}
	ans, err := a.Ask(context.Background(), info)
	require.NoError(t, err)
	require.Equal(t, map[string]agent.Reply{"Proceed?": agent.TextReply("yes"), "Title?": agent.TextReply("My title"),
		"Which files?": agent.ListReply("a.go", "b.go")}, ans.Answers)
	require.Contains(t, out.String(), "answer y or n")
}

func TestLineModeRingsOnAQuestion(t *testing.T) {
	out, _ := runAsking(t, "go\n1\n", func(r *REPL, env map[string]string) {
		r.Terminal = true
		env["TERM"] = "foot"
	},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: twoQuestions}}},
		llmtest.Turn{Text: "ok"})
	ring := "\x1b]777;notify;aidex;the model asks you a question\a"
	require.Contains(t, out, ring)
	require.Less(t, strings.Index(out, ring), strings.Index(out, "1. Which database?"), "the ring comes with the question")
}
