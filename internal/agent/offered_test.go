package agent

import (
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// TestOffered: the tools a run offers, in request order: the registry's,
// todo_write, ask_user only when someone answers, the engine tools.
func TestOffered(t *testing.T) {
	extra := EngineTool{Spec: llm.Tool{Name: "complete_task"}}
	for _, c := range []struct {
		e    *Engine
		want string
	}{
		{&Engine{Tools: &fakeTools{}}, "read,write,todo_write"},
		{&Engine{Tools: &fakeTools{}, Asker: &fakeAsker{}}, "read,write,todo_write,ask_user"},
		{&Engine{Config: Config{EngineTools: []EngineTool{extra}}}, "todo_write,complete_task"},
	} {
		var names []string
		for _, s := range c.e.Offered() {
			names = append(names, s.Name)
		}
		if got := strings.Join(names, ","); got != c.want {
			t.Errorf("Offered() = %s, want %s", got, c.want)
		}
	}
}
