package commands

import "strings"

// chatAlias is one of iptic-memex's chat-mode user commands (typed
// without a slash) and the aidex slash command it stands for.
type chatAlias struct{ words, slash string }

// chatAliases lists them, longest words first. The rest of the line is
// the command's argument.
func chatAliases() []chatAlias {
	return []chatAlias{
		{"load file", "/load"},
		{"load url", "/load"},
		{"load web", "/load"},
		{"load doc", "/load"},
		{"load pdf", "/load"},
		{"load image", "/load"},
		{"load sheet", "/load"},
		{"load project", "/load-project"},
		{"save chat", "/export"},
		{"save code", "/save-code"},
		{"set model", "/model"},
		{"show models", "/models"},
		{"clear chat", "/clear"},
		{"clear context", "/clear"},
		{"clear", "/clear"},
		{"reprint", "/reprint"},
		{"quit", "/exit"},
		{"exit", "/exit"},
	}
}

// ChatAlias maps a line typed in `aidex chat` that is one of iptic-memex's
// user commands ("load file notes.md", "save chat", "set model gpt-5",
// "clear", "quit") to the aidex slash command it stands for ("/load
// notes.md", "/export", "/model gpt-5", "/clear", "/exit"). The words are
// matched whole and case-insensitively; ok is false for any other line,
// which is a prompt. "clear", "quit", "exit" and "reprint" are commands
// only as the whole line ("clear the cache" is a prompt).
func ChatAlias(line string) (slash string, ok bool) {
	line = strings.TrimSpace(line)
	fields := strings.Fields(strings.ToLower(line))
	for _, a := range chatAliases() {
		words := strings.Fields(a.words)
		if len(fields) < len(words) || strings.Join(fields[:len(words)], " ") != a.words {
			continue
		}
		rest := strings.TrimSpace(afterWords(line, len(words)))
		if rest != "" && len(words) == 1 {
			return "", false // "clear the cache", "exit codes?": prompts
		}
		if rest == "" {
			return a.slash, true
		}
		return a.slash + " " + rest, true
	}
	return "", false
}

// afterWords returns s without its first n whitespace-separated words,
// the rest's own spacing kept.
func afterWords(s string, n int) string {
	for range n {
		s = strings.TrimLeft(s, " \t")
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return ""
		}
		s = s[i:]
	}
	return s
}
