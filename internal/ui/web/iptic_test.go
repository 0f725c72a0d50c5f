package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// iptic-memex's web API: /api/chat answers one JSON object when the client
// asks (Accept: application/json, or "stream": false), under /api/ and
// /api/v1/ alike.
func TestChatAnswersJSONWhenAsked(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "forty-two"}, llmtest.Turn{Text: "again"}, llmtest.Turn{Text: "sse"})
	e := newEnv(t, model, "")

	req := e.req(http.MethodPost, "/api/chat", map[string]any{"message": "6*7?"})
	req.Header.Set("Accept", "application/json")
	st, body, h := e.do(req)
	require.Equal(t, http.StatusOK, st, string(body))
	require.True(t, strings.HasPrefix(h.Get("Content-Type"), "application/json"), h.Get("Content-Type"))
	var res ChatResult
	require.NoError(t, json.Unmarshal(body, &res), string(body))
	require.Equal(t, "forty-two", res.Result)
	require.Equal(t, "done", string(res.StopReason))
	require.NotEmpty(t, res.SessionID)
	require.Equal(t, 1, res.Turns)

	st, body, _ = e.do(e.req(http.MethodPost, APIPrefix+"/chat", map[string]any{"message": "again", "stream": false, "session_id": res.SessionID}))
	require.Equal(t, http.StatusOK, st, string(body))
	require.NoError(t, json.Unmarshal(body, &res))
	require.Equal(t, "again", res.Result)

	// Accepting both, or nothing said: the stream, as before.
	req = e.req(http.MethodPost, APIPrefix+"/chat", map[string]any{"message": "s", "session_id": res.SessionID})
	req.Header.Set("Accept", "application/json, text/event-stream")
	_, body, h = e.do(req)
	require.True(t, strings.HasPrefix(h.Get("Content-Type"), "text/event-stream"), string(body))

	// A refused request answers as the stream would: 400 with the cause.
	st, body, _ = e.do(e.req(http.MethodPost, APIPrefix+"/chat", map[string]any{"message": " ", "stream": false}))
	require.Equal(t, http.StatusBadRequest, st, string(body))
}

// iptic-memex's two-step stream: POST /api/stream/start keeps the
// message and answers a token; GET /api/stream?token=T streams it once.
func TestStreamStartThenStream(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "streamed"})
	e := newEnv(t, model, "")
	var start struct {
		Token     string `json:"token"`
		StreamURL string `json:"stream_url"`
	}
	require.Equal(t, http.StatusOK, e.call(http.MethodPost, "/api/stream/start", map[string]any{"message": "hello"}, &start))
	require.Len(t, start.Token, 32)
	require.NotContains(t, start.StreamURL, "hello", "the message is never in a URL")

	resp, err := e.client.Do(e.req(http.MethodGet, "/api/stream?token="+start.Token, nil))
	require.NoError(t, err)
	evs := readSSE(t, resp.Body, nil)
	resp.Body.Close()
	require.Equal(t, "done", evs[len(evs)-1].Name)
	require.Equal(t, "streamed", evs[len(evs)-1].Data["done"].(map[string]any)["result"])

	st, body, _ := e.do(e.req(http.MethodGet, "/api/stream?token="+start.Token, nil))
	require.Equal(t, http.StatusNotFound, st, "a token is good for one stream")
	require.Contains(t, string(body), "unknown or expired stream token")

	// Unauthenticated: refused as every API call.
	plain, err := http.NewRequest(http.MethodPost, e.ts.URL+"/api/stream/start", strings.NewReader(`{"message":"x"}`))
	require.NoError(t, err)
	st, _, _ = e.do(plain)
	require.Equal(t, http.StatusUnauthorized, st)
	require.Equal(t, http.StatusBadRequest, e.call(http.MethodPost, APIPrefix+"/stream/start", map[string]any{"message": ""}, nil))
}

// iptic-memex's page loads its files from /static/<file>.
func TestStaticPathServesUIFiles(t *testing.T) {
	e := newEnv(t, llmtest.NewScript(t), "")
	for _, p := range []string{"/static/app.js", "/app.js", "/static/style.css"} {
		st, body, _ := e.do(e.req(http.MethodGet, p, nil))
		require.Equal(t, http.StatusOK, st, p)
		require.NotEmpty(t, body, p)
	}
	st, _, _ := e.do(e.req(http.MethodGet, "/static/../../etc/passwd", nil))
	require.NotEqual(t, http.StatusOK, st)
}

// A stream token expires after a minute; at most 64 wait at once.
func TestStreamStartTokensExpireAndAreBounded(t *testing.T) {
	var ss streamStarts
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tok, ok := ss.put(ChatRequest{Message: "m"}, t0)
	require.True(t, ok)
	_, ok = ss.take(tok, t0.Add(2*time.Minute))
	require.False(t, ok, "expired")
	for i := 0; i < maxStreamStarts; i++ {
		_, ok = ss.put(ChatRequest{Message: "m"}, t0)
		require.True(t, ok)
	}
	_, ok = ss.put(ChatRequest{Message: "m"}, t0)
	require.False(t, ok, "bounded")
	_, ok = ss.put(ChatRequest{Message: "m"}, t0.Add(2*time.Minute))
	require.True(t, ok, "expired ones make room")
}

// The web chat's /mode names the aidex way for a conversation mode.
func TestWebModeConversationModePointsToMulti(t *testing.T) {
	e := newEnv(t, llmtest.NewScript(t), "")
	var res ChatResult
	require.Equal(t, http.StatusOK, e.call(http.MethodPost, APIPrefix+"/chat", map[string]any{"message": "/mode round-robin", "stream": false}, &res))
	require.Len(t, res.Errors, 1, "%+v", res)
	require.Contains(t, res.Errors[0], "is a conversation mode")
	require.Contains(t, res.Errors[0], "/api/v1/multi")
}

// The web chat's /permissions lists the saved rules; removing one points
// to the terminal.
func TestWebPermissionsCommand(t *testing.T) {
	e := newEnv(t, llmtest.NewScript(t), "[permissions]\ndeny = [\"run_command(git push *)\"]\n")
	var res ChatResult
	require.Equal(t, http.StatusOK, e.call(http.MethodPost, APIPrefix+"/chat", map[string]any{"message": "/permissions", "stream": false}, &res))
	require.Contains(t, string(res.Command), "run_command(git push *)")
	require.Equal(t, http.StatusOK, e.call(http.MethodPost, APIPrefix+"/chat", map[string]any{"message": "/permissions remove x", "stream": false}, &res))
	require.Contains(t, res.Errors[0], "aidex permissions remove RULE")
}

// iptic-memex's stepwise actions: POST /api/action/resume answers the
// waiting question its state_token names (aidex's interaction token),
// /api/action/cancel stops a run as /api/v1/chat/stop, and
// /api/action/start names the slash-command way (issue 36 item 4).
func TestActionAliases(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: askDBArgs}}},
		llmtest.Turn{Text: "Using your pick."})
	e := newEnv(t, model, "")
	var statuses []int
	status, _ := e.chat(map[string]any{"message": "set up storage"}, func(ev sseEvent) {
		if ev.Name != "interaction" {
			return
		}
		if ia := ev.Data["interaction"].(map[string]any); ia["answer"] != nil {
			return
		}
		token := ev.Data["token"].(string)
		statuses = append(statuses,
			e.call(http.MethodPost, "/api/action/resume", map[string]any{"state_token": "nope", "response": "SQLite"}, nil),
			e.call(http.MethodPost, "/api/action/resume", map[string]any{"state_token": token, "response": "SQLite"}, nil))
	})
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, []int{http.StatusNotFound, http.StatusOK}, statuses)
	require.Contains(t, lastRequest(model), `\"Which database?\": \"SQLite\"`)

	var stop map[string]any
	require.Equal(t, http.StatusOK, e.call(http.MethodPost, "/api/action/cancel", map[string]any{}, &stop))
	require.Equal(t, false, stop["stopped"], "nothing runs")
	var start map[string]any
	require.Equal(t, http.StatusBadRequest, e.call(http.MethodPost, "/api/action/start", map[string]any{"action": "set_model"}, &start))
	require.Contains(t, start["error"], "slash commands")
}
