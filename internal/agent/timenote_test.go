package agent

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm"
)

var timeNoteRe = regexp.MustCompile(`<status>Time limit: 10m0s for this run; (\S+) left\.`)

// TestTimeNotes: a run with a deadline tells the model the limit and the
// time left in the newest message of each request, never in the system
// prompt or an earlier message (they stay byte-identical); off, or
// without a deadline, nothing is added.
func TestTimeNotes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		on       bool
		deadline bool
		noted    bool
	}{
		{name: "on", on: true, deadline: true, noted: true},
		{name: "off", deadline: true},
		{name: "no deadline", on: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deadline := time.Now().Add(time.Hour)
			clock := deadline.Add(-10 * time.Minute)
			p := &script{steps: []step{call("r", "read", `{"path":"a"}`), say("done")}}
			e, _, _, _ := newEngine(p, nil)
			e.Config.System = "system"
			e.Config.Harness.TimeNotes = tc.on
			e.Now = func() time.Time { t := clock; clock = clock.Add(time.Minute); return t }
			ctx := context.Background()
			if tc.deadline {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, deadline)
				defer cancel()
			}
			d, err := e.Run(ctx, &Conversation{ID: "s"}, []llm.Part{{Type: llm.PartText, Text: "fix"}}, (&recorder{}).emit)
			if err != nil {
				t.Fatal(err)
			}
			if d.Harness.TimeNotes != tc.on || len(p.reqs) != 2 {
				t.Fatalf("harness %+v, %d requests", d.Harness, len(p.reqs))
			}
			var lefts []time.Duration
			for i, req := range p.reqs {
				if req.System != "system" {
					t.Errorf("request %d: the system prompt changed: %q", i+1, req.System)
				}
				for j, m := range req.Messages {
					text := m.Text()
					for _, part := range m.Parts {
						if part.ToolResult != nil {
							text += part.ToolResult.Content
						}
					}
					has := strings.Contains(text, "Time limit:")
					if newest := j == len(req.Messages)-1; has != (newest && tc.noted) {
						t.Errorf("request %d message %d: time note %v", i+1, j+1, has)
					}
					if m := timeNoteRe.FindStringSubmatch(text); has && m != nil {
						left, _ := time.ParseDuration(m[1])
						lefts = append(lefts, left)
					} else if has {
						t.Errorf("request %d: %q", i+1, text)
					}
				}
			}
			if tc.noted && (len(lefts) != 2 || lefts[0] > 10*time.Minute || lefts[1] >= lefts[0]) {
				t.Errorf("time left %v: want two, at most 10m, going down", lefts)
			}
		})
	}
}
