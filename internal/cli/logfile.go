package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/config"
)

// LogFileName is aidex's own log in the state directory (STATE/aidex.log,
// `aidex config path` prints STATE): one line per error and warning, with
// its time. It never holds keys, headers, prompts or file contents: a
// line is the message of an error or warning, scrubbed of anything shaped
// like a secret and cut to maxLogLine bytes. The file is the user's alone
// (0600) and rotates at maxLogSize to aidex.log.1.
const LogFileName = "aidex.log"

const (
	maxLogSize = 1 << 20
	maxLogLine = 500
)

// secretShaped matches what may be a key or token in a message: a
// "Bearer"/"Basic" credential, a "key=VALUE"-like pair, or a long run of
// letters and digits with both in it.
var secretShaped = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(bearer|basic)\s+\S+|(api[_-]?key|token|secret|password|authorization)["']?\s*[:=]\s*["']?(?:(?:bearer|basic)\s+)?[^\s"',;&]+|[A-Za-z0-9_\-]{24,}`)
})

// scrubLogLine removes secret-shaped text, newlines and control
// characters from a log message and cuts it to maxLogLine bytes.
func scrubLogLine(msg string) string {
	msg = secretShaped().ReplaceAllStringFunc(msg, func(m string) string {
		if strings.ContainsAny(m, " \t:=") || hasLetterAndDigit(m) {
			return "[redacted]"
		}
		return m
	})
	msg = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, msg)
	if len(msg) > maxLogLine {
		cut := maxLogLine
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

func hasLetterAndDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789") && strings.IndexFunc(s, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}) >= 0
}

// logLine appends "TIME LEVEL message" to the state directory's aidex.log,
// rotating it first when it has grown past maxLogSize. Failures (no home
// directory, a read-only disk) are ignored: the log never stops aidex.
func logLine(getenv func(string) string, now time.Time, level, msg string) {
	if getenv == nil {
		return
	}
	paths, err := config.ResolvePaths(getenv)
	if err != nil || paths.StateDir == "" {
		return
	}
	if err := os.MkdirAll(paths.StateDir, 0o700); err != nil {
		return
	}
	file := filepath.Join(paths.StateDir, LogFileName)
	if fi, err := os.Stat(file); err == nil && fi.Size() > maxLogSize {
		_ = os.Rename(file, file+".1")
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_ = f.Chmod(0o600)
	fmt.Fprintf(f, "%s %s %s\n", now.UTC().Format(time.RFC3339), level, scrubLogLine(msg))
}
