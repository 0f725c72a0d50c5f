package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// Item 8: [agent] default_steps, writes_policy and output are the
// defaults of --steps, --agent-writes and --agent-output; flags win.
func TestAgentConfigDefaults(t *testing.T) {
	write := llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"new.txt","content":"hello\n"}`}}}
	srv := llmtest.NewScript(t, write, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"}, llmtest.Turn{Text: "never"})
	e := newE2E(t, srv, "openai", "[agent]\ndefault_steps = 3\nwrites_policy = \"dry-run\"\noutput = \"full\"\n")
	r := e.run(context.Background(), "-p", "go")
	if r.code != 0 || len(srv.Requests()) != 3 || r.stdout != "one\n\ntwo\n" || !strings.Contains(r.stderr, "+hello") {
		t.Fatalf("exit %d, %d requests, stdout %q stderr %s", r.code, len(srv.Requests()), r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); !os.IsNotExist(err) {
		t.Fatal("writes_policy dry-run wrote the file")
	}

	srv = llmtest.NewScript(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	e = newE2E(t, srv, "openai", "[agent]\ndefault_steps = 3\noutput = \"full\"\n")
	if r := e.run(context.Background(), "-p", "go", "--steps", "1", "--agent-output", "final"); r.code != 0 || len(srv.Requests()) != 1 || r.stdout != "one\n" {
		t.Fatalf("flags over config: exit %d, %d requests, stdout %q", r.code, len(srv.Requests()), r.stdout)
	}
}

// An untrusted project file may not set writes_policy = "allow" (writes
// without asking); the setting is ignored with a warning.
func TestAgentWritesPolicyAllowNeedsTrust(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"new.txt","content":"hello\n"}`}}}, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	e.write(".aidex/config.toml", "[agent]\nwrites_policy = \"allow\"\n")
	r := e.run(context.Background(), "-p", "go")
	if r.code != ExitDenied || !strings.Contains(r.stderr, "writes_policy") {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "new.txt")); !os.IsNotExist(err) {
		t.Fatal("an untrusted project file let agent mode write")
	}
}

// show_context_summary and show_context_details print each tool result
// (cut at context_detail_max_chars) on stderr in agent mode with output
// full, also when stderr is not a terminal.
func TestAgentContextDetails(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"big.txt"}`}}}, llmtest.Turn{Text: "read %%DONE%%"})
	e := newE2E(t, srv, "openai", "[agent]\nshow_context_details = true\ncontext_detail_max_chars = 40\n")
	e.write("big.txt", "first line\n"+strings.Repeat("z", 500)+"\n")
	r := e.run(context.Background(), "-p", "go", "--steps", "2", "--agent-output", "full")
	if r.code != 0 || !strings.Contains(r.stderr, "→ read_file") || !strings.Contains(r.stderr, "first line") ||
		!strings.Contains(r.stderr, "more characters)") || strings.Contains(r.stderr, strings.Repeat("z", 100)) {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	srv = llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"big.txt"}`}}}, llmtest.Turn{Text: "read %%DONE%%"})
	e = newE2E(t, srv, "openai", "show_context_summary = false\n")
	e.write("big.txt", "first line\n")
	if r := e.run(context.Background(), "-p", "go", "--steps", "2", "--agent-output", "full"); r.code != 0 || strings.Contains(r.stderr, "read_file") {
		t.Fatalf("summary off: exit %d stderr %s", r.code, r.stderr)
	}
}

// [tools] ensure_trailing_newline ends written text with a newline.
func TestEnsureTrailingNewline(t *testing.T) {
	for _, on := range []bool{true, false} {
		srv := llmtest.NewScript(t, llmtest.Turn{Calls: []llmtest.Call{{Name: "write_file", Args: `{"path":"a.txt","content":"no newline"}`}}}, llmtest.Turn{Text: "ok"})
		cfg := ""
		if on {
			cfg = "[tools]\nensure_trailing_newline = true\n"
		}
		e := newE2E(t, srv, "openai", cfg)
		if r := e.run(context.Background(), "-p", "go", "--agent-writes", "allow"); r.code != 0 {
			t.Fatalf("exit %d %s", r.code, r.stderr)
		}
		want := "no newline"
		if on {
			want += "\n"
		}
		if got := e.read("a.txt"); got != want {
			t.Errorf("ensure_trailing_newline %v: %q", on, got)
		}
	}
}

// Bad [agent] values are refused with the allowed values.
func TestAgentConfigRefusesBadValues(t *testing.T) {
	for cfg, want := range map[string]string{
		"[agent]\noutput = \"loud\"\n":             "final, full, none",
		"[agent]\nwrites_policy = \"sometimes\"\n": "allow, deny, dry-run",
		"[agent]\ncontext_detail_max_chars = 0\n":  "at least 1",
		"verbosity = \"chatty\"\n":                 "low, medium, high",
	} {
		srv := llmtest.NewScript(t)
		e := newE2E(t, srv, "openai", cfg)
		if r := e.run(context.Background(), "-p", "go"); r.code != ExitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("%q: exit %d stderr %s", cfg, r.code, r.stderr)
		}
	}
}

// A run limited by [agent] default_steps names that setting, not --steps.
func TestDefaultStepsLimitNamesConfig(t *testing.T) {
	call := llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}}
	srv := llmtest.NewScript(t, call, llmtest.Turn{Calls: []llmtest.Call{{Name: "list_directory", Args: `{"path":"."}`}}})
	e := newE2E(t, srv, "openai", "[agent]\ndefault_steps = 2\n")
	e.write("a.txt", "a\n")
	r := e.run(context.Background(), "-p", "go")
	if r.code != ExitLimit || !strings.Contains(r.stderr, "stopped after 2 model responses ([agent] default_steps = 2)") {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
}
