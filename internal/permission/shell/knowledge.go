package shell

import "strings"

// IsInterpreter reports shells and interpreters, which run whatever code
// they are given ("python3", "bash", "node", "awk", ...).
func IsInterpreter(base string) bool { return isShellOrInterpreter(base) }

// IsDownloader reports commands whose output comes from the network
// (curl, wget, nc, ...).
func IsDownloader(base string) bool { return downloaders[base] }

// inlineCodeMarks are the option words (with their leading space) and the
// awk call that give an interpreter its program inline.
var inlineCodeMarks = [...]string{" -c", " -e", " -E", " -r", " -p", " --eval", " --print", " --command", "system("}

// MentionsInlineCode reports whether text (a command or the literal part
// of a rule pattern) contains an inline-code option ("python3 -c", "node
// -e", awk "system("): a rule "python3 *" does not allow "python3 -c CODE",
// whose code is opaque, but "python3 -c *" does.
func MentionsInlineCode(text string) bool {
	for _, f := range inlineCodeMarks {
		if strings.Contains(text, f) {
			return true
		}
	}
	return false
}
