package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// byModel answers a 429 to model "scripted" and text to any other.
func byModel(t *testing.T) *llmtest.Script {
	srv := llmtest.NewScript(t)
	srv.Route = func(body []byte, _ int) llmtest.Turn {
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &req)
		if req.Model == "scripted" {
			return llmtest.Turn{Status: 429, ErrorBody: `{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded"}}`}
		}
		return llmtest.Turn{Text: "answer from " + req.Model}
	}
	return srv
}

func TestFallbackModelFlag(t *testing.T) {
	e := newE2E(t, byModel(t), "openai", "")
	r := e.run(context.Background(), "-p", "hi", "--fallback-model", "backup")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "answer from backup" {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "aidex: fake/scripted failed (rate limited): continuing on fake/backup") {
		t.Fatalf("no fallback line on stderr: %s", r.stderr)
	}

	r = e.run(context.Background(), "-p", "hi", "--fallback-model", "backup", "--output-format", "stream-json")
	evs := events(t, r.stdout)
	if got := eventTypes(evs); !strings.HasPrefix(got, "session,waiting,notice,waiting,text") || !strings.HasSuffix(got, ",done") {
		t.Fatalf("events %s", got)
	}
	if n := evs[2]["notice"].(map[string]any); n["kind"] != "fallback" || n["to"] != "fake/backup" {
		t.Fatalf("notice %v", n)
	}
}

func TestEditorFlagNeedsArchitect(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	r := e.run(context.Background(), "-p", "hi", "--editor", "coder")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--editor coder needs --architect MODEL") {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
}

func TestArchitectFlagStreamsTwoPhases(t *testing.T) {
	srv := llmtest.NewScript(t)
	srv.Route = func(body []byte, _ int) llmtest.Turn {
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &req)
		if req.Model == "planner" {
			return llmtest.Turn{Text: "PLAN: nothing needs editing"}
		}
		return llmtest.Turn{Text: "nothing to edit"}
	}
	e := newE2E(t, srv, "openai", "")
	r := e.run(context.Background(), "-p", "hi", "--architect", "planner", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var phases []string
	sessions, dones := 0, 0
	for _, ev := range events(t, r.stdout) {
		switch ev["type"] {
		case "notice":
			n := ev["notice"].(map[string]any)
			phases = append(phases, n["phase"].(string)+" "+n["to"].(string))
		case "session":
			sessions++
		case "done":
			dones++
			if res := ev["done"].(map[string]any)["result"]; res != "nothing to edit" {
				t.Errorf("result %v", res)
			}
		case "text":
			want := map[string]string{"fake/planner": "architect", "fake/scripted": "editor"}[ev["model"].(string)]
			if ev["phase"] != want {
				t.Errorf("text of %v in phase %v", ev["model"], ev["phase"])
			}
		}
	}
	if strings.Join(phases, ",") != "architect fake/planner,editor fake/scripted" || sessions != 1 || dones != 1 {
		t.Fatalf("phases %v, %d session and %d done events", phases, sessions, dones)
	}
}
