package web

import (
	"net/http"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// The Models panel's multi-select and mode: GET/POST /api/v1/multi; a
// parallel turn's answers stream labelled with their models, the
// "choose" event waits for POST /api/v1/choices/{id}, and only the kept
// answer goes into the history.
func TestMultiParallelChooseOverHTTP(t *testing.T) {
	model := llmtest.NewScript(t, llmtest.Turn{Text: "an answer"}, llmtest.Turn{Text: "an answer"})
	e := newEnv(t, model, "")
	setParallel(t, e)
	var chosen string
	labelled := map[string]bool{}
	status, evs := e.chat(map[string]any{"message": "hi"}, func(ev sseEvent) {
		if ev.Name == "text" {
			labelled[ev.Data["model"].(string)] = true
		}
		if ev.Name != "choose" {
			return
		}
		answers := ev.Data["answers"].([]any)
		if len(answers) != 2 {
			t.Errorf("choose: %d answers, want 2", len(answers))
			return
		}
		chosen = answers[1].(map[string]any)["model"].(string)
		id := ev.Data["id"].(string)
		if st := e.call(http.MethodPost, APIPrefix+"/choices/"+id, map[string]any{"keep": []int{5}}, nil); st != http.StatusBadRequest {
			t.Errorf("keep out of range: %d, want 400", st)
		}
		if st := e.call(http.MethodPost, APIPrefix+"/choices/"+id, map[string]any{"keep": []int{1}}, nil); st != http.StatusOK {
			t.Errorf("keep: %d", st)
		}
	})
	if status != http.StatusOK || evs[len(evs)-1].Name != "done" {
		t.Fatalf("chat: %d %v", status, names(evs))
	}
	if !labelled["fake/m1"] || !labelled["fake/m2"] {
		t.Fatalf("text events by model: %v", labelled)
	}
	var view struct {
		Messages []struct {
			Role  string `json:"role"`
			Model string `json:"model"`
		} `json:"messages"`
	}
	e.call(http.MethodGet, APIPrefix+"/history", nil, &view)
	var kept []string
	for _, m := range view.Messages {
		if m.Role == "assistant" {
			kept = append(kept, m.Model)
		}
	}
	if len(kept) != 1 || kept[0] != chosen {
		t.Fatalf("history's answers %v, want only the kept %s", kept, chosen)
	}
	if status := e.call(http.MethodPost, APIPrefix+"/choices/ch_99", map[string]any{"all": true}, nil); status != http.StatusNotFound {
		t.Fatalf("unknown choice: %d, want 404", status)
	}
}

// setParallel checks GET/POST /api/v1/multi's answers and errors, and
// leaves the current session with fake/m1 and fake/m2 in parallel mode.
func setParallel(t *testing.T, e *env) {
	t.Helper()
	var st MultiState
	if status := e.call(http.MethodGet, APIPrefix+"/multi", nil, &st); status != http.StatusOK || st.Mode != "single" || len(st.Models) != 0 || st.Current != "fake/m1" {
		t.Fatalf("GET multi: %d %+v", status, st)
	}
	if status := e.call(http.MethodPost, APIPrefix+"/multi", map[string]any{"mode": "parallel"}, nil); status != http.StatusBadRequest {
		t.Fatalf("parallel without models: %d, want 400", status)
	}
	if status := e.call(http.MethodPost, APIPrefix+"/multi", map[string]any{"mode": "zigzag", "models": []string{"fake/m1"}}, nil); status != http.StatusBadRequest {
		t.Fatalf("unknown mode: %d, want 400", status)
	}
	body := map[string]any{"models": []string{"fake/m1", "fake/m2"}, "mode": "parallel"}
	if status := e.call(http.MethodPost, APIPrefix+"/multi", body, &st); status != http.StatusOK || st.Mode != "parallel" || len(st.Models) != 2 {
		t.Fatalf("POST multi: %d %+v", status, st)
	}
}
