package agent

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// InstructionFileNames are the project instruction files read into the
// system prompt, in this order, in every directory from the git root down to
// the workspace.
var instructionFileNames = [...]string{"AGENTS.md", "CLAUDE.md", "GEMINI.md", "CRUSH.md", ".cursorrules", "CONVENTIONS.md"}

// maxInstructionBytes caps one instruction file in the prompt.
const maxInstructionBytes = 32 << 10

// InstructionFile is a project or global instruction file: its path and
// content (capped at 32 KiB).
type InstructionFile struct {
	Path    string
	Content string
}

// LoadInstructions reads the global instruction file (globalDir/AGENTS.md,
// e.g. ~/.config/aidex/AGENTS.md) and the project's instruction files from
// the git root (the nearest ancestor holding .git; the workspace itself
// when there is none) down to the workspace. Unreadable files are skipped.
func LoadInstructions(workspace, globalDir string) []InstructionFile {
	var out []InstructionFile
	if globalDir != "" {
		out = appendInstruction(out, filepath.Join(globalDir, "AGENTS.md"))
	}
	for _, dir := range dirsFromGitRoot(workspace) {
		for _, name := range instructionFileNames {
			out = appendInstruction(out, filepath.Join(dir, name))
		}
	}
	return out
}

func appendInstruction(out []InstructionFile, path string) []InstructionFile {
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	buf := make([]byte, maxInstructionBytes)
	n, _ := f.Read(buf)
	if n == 0 {
		return out
	}
	content := strings.TrimSpace(string(buf[:n]))
	if content == "" {
		return out
	}
	return append(out, InstructionFile{Path: path, Content: content})
}

// dirsFromGitRoot lists the directories from the git root down to dir.
func dirsFromGitRoot(dir string) []string {
	dirs := []string{dir}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{dir} // no git root: the workspace alone
		}
		d = parent
		dirs = append(dirs, d)
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

// PromptInput is what the system prompt is built from. Override replaces
// the built-in instructions (system_prompt_file); Append is added at the end
// (--append-system-prompt); Notes are extra sections (pinned memories, agent
// mode rules), each added verbatim.
type PromptInput struct {
	Workspace    string
	OS           string
	Shell        string
	Date         time.Time
	Git          string
	Profile      string
	Instructions []InstructionFile
	Notes        []string
	Override     string
	Append       string
}

const basePrompt = `You are aidex, a coding agent working in the user's workspace through tools. Be direct and brief; no flattery, no filler.

How to work:
- Find things with grep, search_files and list_directory; read files with read_file before changing them. Never guess a file's content.
- Change files with edit_file (old_string must match the file exactly, with enough context to be unique) or write_file for new files. Keep the project's style.
- Run builds and tests with run_command and read the output. After a change, verify it the way the project does.
- For work of several steps, keep a plan with todo_write and update it as you go.
- Paths are relative to the workspace; tools cannot reach outside it.
- If a tool call is denied, do not repeat it: choose another way or explain what the user must do.
- When a command fails, read the error and fix the cause; do not retry blindly.
- Do not commit, push or delete work unless asked.
- Answer questions about the code from what you read, citing paths and lines.
- End with a short summary of what you changed and what you verified.`

// BuildSystemPrompt assembles the system prompt with plain string building
// (user text containing braces is never interpreted).
func BuildSystemPrompt(in PromptInput) string {
	var b strings.Builder
	if in.Override != "" {
		b.WriteString(strings.TrimSpace(in.Override))
	} else {
		b.WriteString(basePrompt)
	}
	b.WriteString("\n\n# Environment\n")
	line(&b, "Workspace", in.Workspace)
	line(&b, "OS", in.OS)
	line(&b, "Shell", in.Shell)
	if !in.Date.IsZero() {
		line(&b, "Date", in.Date.Format("2006-01-02"))
	}
	line(&b, "Git", in.Git)
	line(&b, "Tool profile", in.Profile)
	for _, f := range in.Instructions {
		b.WriteString("\n# Instructions from ")
		b.WriteString(f.Path)
		b.WriteString("\n")
		b.WriteString(f.Content)
		b.WriteString("\n")
	}
	for _, n := range in.Notes {
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(n))
		b.WriteString("\n")
	}
	if in.Append != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(in.Append))
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func line(b *strings.Builder, key, value string) {
	if value == "" {
		return
	}
	b.WriteString("- ")
	b.WriteString(key)
	b.WriteString(": ")
	b.WriteString(value)
	b.WriteString("\n")
}
