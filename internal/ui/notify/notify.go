// Package notify tells the user that aidex needs them — an approval waits,
// or a long turn has ended — by ringing the terminal: a bell (BEL), or a
// desktop notification escape sequence where the terminal is known to show
// one (OSC 9 for iTerm2 and Windows Terminal, OSC 777 for WezTerm, ghostty,
// foot and rxvt, OSC 99 for kitty). The terminal UI and the line mode both
// use it; it only chooses the bytes, the front end writes them.
package notify

import (
	"strings"
	"time"
)

// The values of the notify setting (config key notify).
const (
	// ModeAuto sends a desktop notification where the terminal is known to
	// show one and rings the bell elsewhere (and always inside tmux or
	// screen, which pass the bell on but drop unknown sequences).
	ModeAuto = "auto"
	// ModeBell always rings the bell (BEL).
	ModeBell = "bell"
	// ModeOSC always sends a desktop notification sequence (OSC 9 when the
	// terminal is not recognised), wrapped for tmux's passthrough inside
	// tmux (which needs `set -g allow-passthrough on`).
	ModeOSC = "osc"
	// ModeOff never notifies.
	ModeOff = "off"
)

// DefaultAfter is how long a turn must have run for its end to notify.
const DefaultAfter = 10 * time.Second

// Title is the title of desktop notifications.
const Title = "aidex"

const (
	bel = "\a"
	esc = "\x1b"
	st  = esc + `\`
)

// protocol is how a terminal shows a desktop notification.
type protocol int

const (
	protoBell protocol = iota
	protoOSC9
	protoOSC777
	protoOSC99
)

// Notifier decides whether an occasion notifies and with which bytes.
// The zero value of After means DefaultAfter; Getenv nil means an empty
// environment (the bell in auto mode).
type Notifier struct {
	// Mode is one of ModeAuto, ModeBell, ModeOSC, ModeOff; "" is ModeAuto,
	// any other value ModeOff.
	Mode string
	// Getenv looks up the environment that identifies the terminal
	// (TERM_PROGRAM, TERM, WT_SESSION, KITTY_WINDOW_ID, TMUX, STY).
	Getenv func(string) string
	// After is the shortest turn whose end notifies (0: DefaultAfter).
	After time.Duration
}

// Approval returns the bytes that say an approval of tool waits ("" for
// none).
func (n Notifier) Approval(tool string) string {
	return n.Sequence(Title, "approval needed: "+tool)
}

// Question returns the bytes that say the model asks the user a question
// (ask_user) and waits for the answer. The question's text (the model's)
// is left out of the terminal sequence.
func (n Notifier) Question() string {
	return n.Sequence(Title, "the model asks you a question")
}

// TurnEnded returns the bytes that say a turn which ran for elapsed has
// ended, "" when it was shorter than After (or notifications are off).
func (n Notifier) TurnEnded(elapsed time.Duration) string {
	after := n.After
	if after <= 0 {
		after = DefaultAfter
	}
	if elapsed < after {
		return ""
	}
	return n.Sequence(Title, "finished after "+elapsed.Truncate(time.Second).String()+"; waiting for you")
}

// Sequence returns the bytes that notify with title and body under the
// Notifier's mode and terminal ("" when the mode is off). Control
// characters in title and body are dropped, and ';' in the title of
// OSC 777 (its field separator) becomes ','.
func (n Notifier) Sequence(title, body string) string {
	getenv := n.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	title, body = clean(title), clean(body)
	mux := multiplexer(getenv)
	switch n.Mode {
	case ModeBell:
		return bel
	case ModeAuto, "":
		if mux != "" {
			return bel
		}
		return encode(detect(getenv), title, body)
	case ModeOSC:
		p := detect(getenv)
		if p == protoBell {
			p = protoOSC9
		}
		seq := encode(p, title, body)
		if mux == "tmux" {
			return tmuxWrap(seq)
		}
		return seq
	}
	return ""
}

// detect recognises the terminal from its environment variables.
func detect(getenv func(string) string) protocol {
	term := getenv("TERM")
	switch {
	case getenv("KITTY_WINDOW_ID") != "" || term == "xterm-kitty":
		return protoOSC99
	case getenv("TERM_PROGRAM") == "iTerm.app" || getenv("LC_TERMINAL") == "iTerm2" || getenv("WT_SESSION") != "":
		return protoOSC9
	case getenv("TERM_PROGRAM") == "WezTerm" || getenv("TERM_PROGRAM") == "ghostty" || term == "xterm-ghostty" ||
		strings.HasPrefix(term, "foot") || strings.HasPrefix(term, "rxvt"):
		return protoOSC777
	}
	return protoBell
}

// multiplexer names the terminal multiplexer aidex runs in ("tmux",
// "screen" or "").
func multiplexer(getenv func(string) string) string {
	switch {
	case getenv("TMUX") != "":
		return "tmux"
	case getenv("STY") != "":
		return "screen"
	}
	return ""
}

// encode writes the notification in protocol p.
func encode(p protocol, title, body string) string {
	switch p {
	case protoOSC9:
		return esc + "]9;" + title + ": " + body + bel
	case protoOSC777:
		return esc + "]777;notify;" + strings.ReplaceAll(title, ";", ",") + ";" + body + bel
	case protoOSC99:
		return esc + "]99;i=aidex:d=0;" + title + st + esc + "]99;i=aidex:d=1:p=body;" + body + st
	}
	return bel
}

// tmuxWrap wraps seq in tmux's passthrough (DCS tmux; ... ST, every ESC
// doubled), so tmux hands it to the outer terminal.
func tmuxWrap(seq string) string {
	return esc + "Ptmux;" + strings.ReplaceAll(seq, esc, esc+esc) + st
}

// clean drops control characters (a stray ESC or BEL would end the
// sequence early).
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}
