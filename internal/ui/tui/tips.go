package tui

import (
	"path/filepath"
	"strings"
)

// startTips are the banner's tips (ayder-cli's welcome banner); one is
// shown per day.
func startTips() []string {
	return []string{
		"@path attaches a file; !command runs a shell command yourself",
		"Shift+Tab cycles the permission mode (plan, ask, auto-edit, yolo)",
		"Esc stops the model and keeps the partial answer; aidex -c continues later",
		"/rewind goes back to before any prompt, files and conversation",
		"/cost shows the tokens and cost of this session",
		"/tasks opens the Ralph task list; /plan GOAL fills it",
		"Ctrl+O expands the reasoning and subagent cards",
		"/model switches the model; /multi lets several answer",
	}
}

// bannerTip is the banner's second line: the workspace (~ for the home
// folder) and the tip of day yearDay.
func bannerTip(workspace, home string, yearDay int) string {
	ws := workspace
	if home != "" {
		if rel, err := filepath.Rel(home, workspace); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			ws = filepath.Join("~", rel)
		}
	}
	tips := startTips()
	return ws + " · tip: " + tips[yearDay%len(tips)]
}
