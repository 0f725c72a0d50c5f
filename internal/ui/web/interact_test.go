package web

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

const askDBArgs = `{"questions":[{"question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}]}]}`

// lastRequest is the model's last request body.
func lastRequest(model *llmtest.Script) string {
	reqs := model.Requests()
	return string(reqs[len(reqs)-1])
}

// TestInteractionTokenSingleUse: the SSE interaction event carries a
// token; a wrong token is refused (403), an unknown label too (400, the
// token still valid), the right answer resumes the run with it as the
// tool result, and the used token answers nothing any more (404).
func TestInteractionTokenSingleUse(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: askDBArgs}}},
		llmtest.Turn{Text: "Using your pick."})
	e := newEnv(t, model, "")
	var statuses []int
	var answered string
	status, evs := e.chat(map[string]any{"message": "set up storage"}, func(ev sseEvent) {
		if ev.Name != "interaction" {
			return
		}
		ia := ev.Data["interaction"].(map[string]any)
		if ia["answer"] != nil {
			answered = ia["answer"].(map[string]any)["answers"].(map[string]any)["Which database?"].(string)
			return
		}
		id, token := ia["id"].(string), ev.Data["token"].(string)
		if len(token) < 32 {
			t.Errorf("token %q", token)
		}
		path := "/api/interaction/" + id
		var out map[string]any
		wrong := "0" + token[1:] // a token one character off (never the right one)
		if token[0] == '0' {
			wrong = "1" + token[1:]
		}
		statuses = append(statuses,
			e.call(http.MethodPost, path, map[string]any{"token": wrong, "answers": map[string]any{"Which database?": "SQLite"}}, nil),
			e.call(http.MethodPost, path, map[string]any{"token": token, "answers": map[string]any{"Which database?": "Oracle"}}, &out))
		if msg, _ := out["error"].(string); !strings.Contains(msg, `"Oracle" is not an option`) {
			t.Errorf("unknown label error: %q", msg)
		}
		statuses = append(statuses,
			e.call(http.MethodPost, path, map[string]any{"token": token, "answers": map[string]any{"Which database?": "SQLite"}}, nil),
			e.call(http.MethodPost, path, map[string]any{"token": token, "answers": map[string]any{"Which database?": "Postgres"}}, nil))
	})
	if status != http.StatusOK {
		t.Fatalf("chat: %d", status)
	}
	want := []int{http.StatusForbidden, http.StatusBadRequest, http.StatusOK, http.StatusNotFound}
	if len(statuses) != len(want) {
		t.Fatalf("statuses %v (events %v)", statuses, names(evs))
	}
	for i := range want {
		if statuses[i] != want[i] {
			t.Errorf("POST %d: %d, want %d", i+1, statuses[i], want[i])
		}
	}
	if answered != "SQLite" {
		t.Errorf("the answered interaction event says %q", answered)
	}
	if last := lastRequest(model); !strings.Contains(last, `\"Which database?\": \"SQLite\"`) {
		t.Errorf("the answer is not the tool result: %s", last)
	}
}

// movedClock is a clock a test moves forward.
type movedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *movedClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *movedClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestInteractionTokenExpires(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: askDBArgs}}},
		llmtest.Turn{Text: "Deciding myself."})
	e := newEnv(t, model, "")
	clock := &movedClock{t: time.Now()}
	e.srv.now = clock.now
	var got int
	var msg string
	e.chat(map[string]any{"message": "go"}, func(ev sseEvent) {
		ia := ev.Data["interaction"]
		if ev.Name != "interaction" || ia.(map[string]any)["answer"] != nil {
			return
		}
		clock.add(interactionTTL + time.Second)
		var out map[string]any
		got = e.call(http.MethodPost, "/api/interaction/"+ia.(map[string]any)["id"].(string),
			map[string]any{"token": ev.Data["token"], "answers": map[string]any{"Which database?": "SQLite"}}, &out)
		msg, _ = out["error"].(string)
	})
	if got != http.StatusGone || !strings.Contains(msg, "expired") {
		t.Fatalf("an expired token: %d %q, want 410", got, msg)
	}
	if last := lastRequest(model); !strings.Contains(last, "no one answered in the web UI") {
		t.Errorf("the model is not told that no one answered: %s", last)
	}
}

func TestInteractionCancelDeclines(t *testing.T) {
	model := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "ask_user", Args: askDBArgs}}},
		llmtest.Turn{Text: "ok"})
	e := newEnv(t, model, "")
	var listed int
	e.chat(map[string]any{"message": "go"}, func(ev sseEvent) {
		ia := ev.Data["interaction"]
		if ev.Name != "interaction" || ia.(map[string]any)["answer"] != nil {
			return
		}
		var list struct {
			Interactions []map[string]any `json:"interactions"`
		}
		e.call(http.MethodGet, "/api/interactions", nil, &list)
		listed = len(list.Interactions)
		if listed == 1 && list.Interactions[0]["token"] != ev.Data["token"] {
			t.Error("the list gives another token")
		}
		e.call(http.MethodPost, "/api/interaction/"+ia.(map[string]any)["id"].(string), map[string]any{"token": ev.Data["token"], "declined": true}, nil)
	})
	if listed != 1 {
		t.Errorf("GET /api/interactions listed %d", listed)
	}
	if last := lastRequest(model); !strings.Contains(last, "The user declined to answer") {
		t.Errorf("the decline is not the tool result: %s", last)
	}
}
