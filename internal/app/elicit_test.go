package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// formAnswerer is an Asker that records the questions and answers from a table.
type formAnswerer struct {
	infos   []agent.InteractionInfo
	answers map[string]string // a word of the question -> answer
}

func (a *formAnswerer) Ask(_ context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	a.infos = append(a.infos, info)
	out := agent.InteractionAnswer{ID: info.ID, Answers: map[string]agent.Reply{}}
	for _, q := range info.Questions {
		for word, ans := range a.answers {
			if strings.Contains(q.Question, word) {
				out.Answers[q.Question] = agent.TextReply(ans)
			}
		}
	}
	return out, nil
}

// elicitServer is an HTTP MCP server whose tool deploy asks the user for a
// form (elicitation) and answers what it got.
func elicitServer(t *testing.T) string {
	srv := sdk.NewServer(&sdk.Implementation{Name: "deployer", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "deploy"}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Where should it go?", RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"env":      map[string]any{"type": "string", "title": "Environment", "enum": []string{"staging", "production"}},
				"replicas": map[string]any{"type": "integer", "description": "how many copies"},
				"notify":   map[string]any{"type": "boolean", "title": "Notify the team"},
			},
			"required": []string{"env"},
		}})
		if err != nil {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "elicitation failed: " + err.Error()}}}, nil, nil
		}
		b, _ := json.Marshal(res.Content)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Action + " " + string(b)}}}, nil, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// An MCP server's form request (elicitation) is put to the user through the
// session's Asker, as the front ends show ask_user's questions, naming the
// server; the answers reach the server typed. Without an Asker (headless) it
// is refused with the reason, which reaches the model.
func TestMCPElicitation(t *testing.T) {
	url := elicitServer(t)
	for _, c := range []struct {
		name  string
		asker *formAnswerer
		want  string
	}{
		{"a front end that can ask", &formAnswerer{answers: map[string]string{"Environment": "production", "copies": "3", "Notify": "yes"}},
			`accept {"env":"production","notify":true,"replicas":3}`},
		{"headless", nil, "no one can answer during this run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "mcp__deployer__deploy", Args: `{}`}}}, llmtest.Turn{Text: "done"})
			home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n")+
				fmt.Sprintf("\n[permissions]\nallow = [\"mcp__deployer__*\"]\n\n[mcp_servers.deployer]\nurl = %q\n", url))
			svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv}})
			require.NoError(t, err)
			t.Cleanup(func() { _ = svc.Close() })
			ctx := context.Background()
			sess, err := svc.Pick(ctx, "", false)
			require.NoError(t, err)
			o := SessionOptions{}
			if c.asker != nil {
				o.Asker = c.asker
			}
			live, err := svc.Session(ctx, sess, o)
			require.NoError(t, err)
			defer live.Close()
			_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "go"}}, func(agent.Event) {})
			require.NoError(t, err)
			var req map[string]any
			require.NoError(t, json.Unmarshal(script.Requests()[1], &req))
			out := strings.Join(toolOutputs(req), "\n")
			require.Contains(t, out, c.want)
			if c.asker != nil {
				require.Len(t, c.asker.infos, 1)
				qs := c.asker.infos[0].Questions
				require.Len(t, qs, 3)
				require.Contains(t, qs[0].Question, "MCP server deployer asks: Where should it go?")
				for _, q := range qs {
					require.Equal(t, "MCP deployer", q.Header)
				}
				kinds := map[agent.QuestionKind]int{}
				for _, q := range qs {
					kinds[q.Kind]++
				}
				require.Equal(t, map[agent.QuestionKind]int{agent.KindChoice: 1, agent.KindText: 1, agent.KindConfirm: 1}, kinds)
			} else {
				require.Contains(t, out, "MCP server deployer asked the user for input")
			}
		})
	}
}

// defaultsUser answers a form as a user who takes every default: a text
// left empty, the choices marked as the default picked.
func defaultsUser(_ context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
	out := agent.InteractionAnswer{ID: info.ID, Answers: map[string]agent.Reply{}}
	for _, q := range info.Questions {
		var picks []string
		for _, o := range q.Options {
			if strings.HasSuffix(o.Label, defaultMark) {
				picks = append(picks, o.Label)
			}
		}
		switch {
		case q.Kind == agent.KindChoice && q.MultiSelect:
			out.Answers[q.Question] = agent.ListReply(picks...)
		case q.Kind == agent.KindChoice && len(picks) == 1:
			out.Answers[q.Question] = agent.TextReply(picks[0])
		default:
			out.Answers[q.Question] = agent.TextReply("")
		}
	}
	return out, nil
}

// A form's defaults (SEP-1034) are offered and given for fields left
// empty or picked as marked; enums with titles (oneOf, legacy enumNames)
// and multi selects (an array of enum values, SEP-1330) are choices whose
// answers reach the server as the schema's values.
func TestElicitFormDefaultsAndEnums(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"name":     map[string]any{"type": "string", "default": "John Doe"},
		"age":      map[string]any{"type": "integer", "default": 30},
		"score":    map[string]any{"type": "number", "default": 95.5},
		"status":   map[string]any{"type": "string", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
		"verified": map[string]any{"type": "boolean", "default": true},
		"legacy":   map[string]any{"type": "string", "enum": []string{"opt1", "opt2"}, "enumNames": []string{"Option One", "Option Two"}},
		"titled":   map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "v1", "title": "First"}, map[string]any{"const": "v2", "title": "Second"}}},
		"multi": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []string{"a", "b", "c"}},
			"default": []string{"a", "c"}},
		"tmulti": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"const": "x", "title": "Ex"}, map[string]any{"const": "y", "title": "Why"}}}},
	}}
	p := &sdk.ElicitParams{Message: "fill in", RequestedSchema: schema}
	var asked []agent.Question
	res, err := elicitForm(context.Background(), func(ctx context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
		asked = append(asked, info.Questions...)
		return defaultsUser(ctx, info)
	}, "srv", p)
	require.NoError(t, err)
	require.Equal(t, "accept", res.Action)
	require.Equal(t, `{"age":30,"multi":["a","c"],"name":"John Doe","score":95.5,"status":"active","verified":true}`, llmtest.JSONOf(t, res.Content))
	byWord := func(w string) agent.Question {
		for _, q := range asked {
			if strings.Contains(q.Question, w) {
				return q
			}
		}
		t.Fatalf("no question about %s in %+v", w, asked)
		return agent.Question{}
	}
	require.Contains(t, byWord("name").Question, "default: John Doe")
	require.Equal(t, agent.KindChoice, byWord("verified").Kind)
	require.True(t, byWord("tmulti").MultiSelect)
	require.Equal(t, []agent.Option{{Label: "Option One"}, {Label: "Option Two"}}, byWord("legacy").Options)

	answers := map[string]agent.Reply{}
	for _, q := range asked {
		switch {
		case strings.Contains(q.Question, "legacy"):
			answers[q.Question] = agent.TextReply("Option Two")
		case strings.Contains(q.Question, "titled"):
			answers[q.Question] = agent.TextReply("Second")
		case strings.Contains(q.Question, "tmulti"):
			answers[q.Question] = agent.ListReply("Ex", "Why")
		case strings.Contains(q.Question, "multi"):
			answers[q.Question] = agent.ListReply("b")
		case strings.Contains(q.Question, "verified"):
			answers[q.Question] = agent.TextReply("no")
		}
	}
	res, err = elicitForm(context.Background(), func(_ context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
		return agent.InteractionAnswer{ID: info.ID, Answers: answers}, nil
	}, "srv", p)
	require.NoError(t, err)
	require.Equal(t, `{"age":30,"legacy":"opt2","multi":["b"],"name":"John Doe","score":95.5,"status":"active","titled":"v2","tmulti":["x","y"],"verified":false}`,
		llmtest.JSONOf(t, res.Content))
}

// A required field left empty, or an answer that is not of the field's
// type, is asked again with the reason (the other answers are kept);
// after three tries the form is declined instead of sending the server
// content its schema refuses.
func TestElicitFormAsksAgainForMissingOrBadAnswers(t *testing.T) {
	p := &sdk.ElicitParams{Message: "deploy", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
		"env":      map[string]any{"type": "string"},
		"replicas": map[string]any{"type": "integer"},
		"note":     map[string]any{"type": "string"},
	}, "required": []string{"env", "replicas"}}}
	var rounds [][]string
	answer := func(round int, q string) string {
		switch {
		case strings.Contains(q, "note"):
			return "first try"
		case round == 0 && strings.Contains(q, "replicas"):
			return "three"
		case round == 0:
			return ""
		case strings.Contains(q, "replicas"):
			return "3"
		}
		return "prod"
	}
	res, err := elicitForm(context.Background(), func(_ context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
		var texts []string
		out := agent.InteractionAnswer{ID: info.ID, Answers: map[string]agent.Reply{}}
		for _, q := range info.Questions {
			texts = append(texts, q.Question)
			out.Answers[q.Question] = agent.TextReply(answer(len(rounds), q.Question))
		}
		rounds = append(rounds, texts)
		return out, nil
	}, "srv", p)
	require.NoError(t, err)
	require.Equal(t, "accept", res.Action)
	require.Equal(t, map[string]any{"env": "prod", "replicas": int64(3), "note": "first try"}, res.Content)
	require.Len(t, rounds, 2)
	require.Len(t, rounds[1], 2, "only the fields to fix are asked again: %q", rounds[1])
	again := strings.Join(rounds[1], "\n")
	require.Contains(t, again, "an answer is required")
	require.Contains(t, again, `"three" is not a whole number`)

	tries := 0
	res, err = elicitForm(context.Background(), func(_ context.Context, info agent.InteractionInfo) (agent.InteractionAnswer, error) {
		tries++
		return agent.InteractionAnswer{ID: info.ID, Answers: map[string]agent.Reply{}}, nil
	}, "srv", p)
	require.NoError(t, err)
	require.Equal(t, "decline", res.Action)
	require.Equal(t, 3, tries)
}
