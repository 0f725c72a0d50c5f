package plain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/zelvior/aidex/internal/ralph"
	"github.com/zelvior/aidex/internal/ui/commands"
)

// plan runs /plan GOAL: the planning run's events are printed, then the
// proposed tasks, and they are saved when the user answers y. Ctrl+C
// stops the planning run (nothing is saved).
func (r *REPL) plan(ctx context.Context, ctrl *commands.Controller, goal string, sigs <-chan os.Signal) error {
	out := r.Printer.Out
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
		}
	}()
	fmt.Fprintln(out, "planning in plan mode (read-only tools); Ctrl+C stops")
	res, err := ctrl.Tasks().Plan(pctx, goal, r.Printer.Event)
	close(done)
	if err != nil {
		if pctx.Err() != nil && ctx.Err() == nil {
			return errors.New("planning stopped; nothing saved")
		}
		return err
	}
	r.Printer.Line("")
	commands.WriteProposal(out, res)
	ans, err := r.ask(ctx, fmt.Sprintf("Save these %d tasks to %s? [y/N] ", len(res.Tasks), ralph.FileName))
	if err != nil || !isYes(ans) {
		fmt.Fprintln(out, "nothing saved")
		return nil
	}
	saved, err := ctrl.Tasks().SavePlan(ctx, res.Tasks)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "saved %d tasks to %s: /tasks lists them, /implement ID or /implement-all runs them\n", len(saved), ralph.FileName)
	return nil
}

func isYes(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "y", "yes":
		return true
	}
	return false
}

// ralphRun runs the Ralph loop (/implement-all) in the foreground,
// printing its events. The first Ctrl+C stops the loop after the current
// task; the second interrupts the task (it goes back to pending).
func (r *REPL) ralphRun(ctx context.Context, ctrl *commands.Controller, sigs <-chan os.Signal) error {
	p := r.Printer
	if n := ctrl.Tasks().Notice(); n != "" {
		p.Line("note: " + n)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	emit := func(ev ralph.Event) {
		if ev.Agent != nil {
			p.Event(*ev.Agent)
			return
		}
		if s := commands.RalphEventLine(ev); s != "" {
			p.Line(s)
		}
	}
	wait, err := ctrl.Tasks().Start(rctx, emit)
	if err != nil {
		return err
	}
	p.Line("Ralph loop started: Ctrl+C stops after the current task, twice interrupts it")
	done := make(chan struct{})
	go func() {
		stopping := false
		for {
			select {
			case <-sigs:
				if stopping {
					cancel()
					return
				}
				stopping = true
				_ = ctrl.Ralph().Stop()
				p.Line("(stopping after the current task; Ctrl+C again interrupts it)")
			case <-done:
				return
			}
		}
	}()
	_, err = wait()
	close(done)
	return err
}
