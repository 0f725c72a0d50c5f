package gitdir

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// ProgramKey is one git setting whose value is a program, names one, or
// picks one (a tool, a driver, a helper).
type ProgramKey struct {
	// Pattern is a regular expression of the lower-case setting name
	// ("section.key"; ".+" stands for a subsection, whose case git keeps).
	Pattern string
	// Neutral is a harmless value: the program git uses by default where
	// there is one, else "" (git then cannot run "", which fails closed).
	Neutral string
	// Always reports a key set to Neutral in every git aidex runs and
	// every environment a command gets, whatever config sets it; the
	// others are neutralised when the repository's own config sets them
	// (the user's global value then comes back after Neutral).
	Always bool
}

// ProgramKeys is THE table of git settings that run programs: every git
// aidex runs for itself (the git tools, the prompt's status, checkpoints,
// Ralph) and every command's git environment neutralise these, so that a
// repository's own config (which a command or a cloned repository may
// write) never makes git run a program. A test compares it with the
// names `git help --config` prints.
var ProgramKeys = [...]ProgramKey{
	{Pattern: `core\.pager`, Neutral: "cat", Always: true},
	{Pattern: `core\.fsmonitor`, Neutral: "false", Always: true},
	{Pattern: `core\.hookspath`, Neutral: os.DevNull, Always: true},
	{Pattern: `core\.sshcommand`, Neutral: "ssh"},
	{Pattern: `core\.askpass`},
	{Pattern: `core\.editor`, Neutral: "false"}, // no terminal: an editor could only hang
	{Pattern: `sequence\.editor`, Neutral: "false"},
	{Pattern: `core\.attributesfile`, Neutral: os.DevNull}, // attributes pick filters and drivers
	{Pattern: `core\.alternaterefscommand`},
	{Pattern: `core\.gitproxy`}, // every value counts: see Unneutralisable
	{Pattern: `pager\..+`, Neutral: "false"},
	{Pattern: `diff\.external`},
	{Pattern: `diff\..+\.textconv`, Neutral: "cat"}, // the identity conversion
	{Pattern: `diff\..+\.command`},
	{Pattern: `(diff|merge)\.(gui)?tool`},
	{Pattern: `filter\..+\.(clean|smudge|process)`},
	{Pattern: `merge\..+\.driver`},
	{Pattern: `credential\.(.+\.)?helper`},
	{Pattern: `gpg\.(.+\.)?program`},
	{Pattern: `gpg\.ssh\.defaultkeycommand`},
	{Pattern: `tar\..+\.command`},
	{Pattern: `remote\..+\.uploadpack`, Neutral: "git-upload-pack"},
	{Pattern: `remote\..+\.receivepack`, Neutral: "git-receive-pack"},
	{Pattern: `submodule\..+\.update`, Neutral: "checkout"}, // "!command" runs it
	{Pattern: `(diff|merge)tool\..+\.(cmd|path)`},
	{Pattern: `guitool\..+\.cmd`},
	{Pattern: `trailer\..+\.(command|cmd)`},
	{Pattern: `alias\..+`}, // "!command" runs it
	{Pattern: `(browser|man)\..+\.(cmd|path)`},
	{Pattern: `(web|help|instaweb)\.browser`},
	{Pattern: `imap\.tunnel`},
	{Pattern: `uploadpack\.packobjectshook`},
	{Pattern: `sendemail\.(.+\.)?(smtpserver|tocmd|cccmd|headercmd|sendmailcmd)`},
}

// ReviewedExceptions are names `git help --config` prints whose last
// part sounds like a program but whose value never runs one.
var ReviewedExceptions = [...]string{
	"advice.ignoredhook",          // a switch for a message
	"advice.waitingforeditor",     // a switch for a message
	"color.pager",                 // whether to colour output to the pager
	"column.clean",                // a column layout
	"diff.<driver>.cachetextconv", // a switch: cache the textconv output
	"gitcvs.dbdriver",             // the DBI driver name of git-cvsserver's database
	"http.proxy",                  // a proxy server's URL
	"remote.<name>.proxy",         // a proxy server's URL
	"include.path",                // a config file: its keys are checked by scope (RepoGitEnviron)
	"includeif.<condition>.path",  // likewise
	"submodule.<name>.path",       // a folder
}

// Unneutralisable are keys no later value can cancel (every value
// counts, the first matching one wins): when the repository sets one,
// aidex refuses to run git there instead.
var Unneutralisable = [...]string{"core.gitproxy"}

// SafetyConfig are settings that are not programs but that every git
// aidex runs, and every command's environment, get too: no implicit
// bare repository (a folder holding HEAD, objects/ and refs/, written as
// plain files), no signature program for `git log`, and no ext::
// transport (a command as a remote URL).
var SafetyConfig = [...][2]string{
	{"safe.bareRepository", "explicit"},
	{"log.showSignature", "false"},
	{"protocol.ext.allow", "never"},
}

// keyMatcher matches setting names against one ProgramKeys pattern. A
// pattern that is a plain name (letters and digits joined by `\.`) is
// compared as a string; the others are compiled on their first use, and
// only tried on names starting with one of their sections. A start in a
// repository whose config holds only core settings then compiles no
// regular expression (the 35 patterns used to cost every start ~1 ms).
type keyMatcher struct {
	literal  string // the name, for a plain-name pattern
	sections []string
	re       func() *regexp.Regexp
}

// programKeyMatchers are ProgramKeys' matchers, in the table's order.
var programKeyMatchers = sync.OnceValue(func() []keyMatcher {
	out := make([]keyMatcher, len(ProgramKeys))
	for i, k := range ProgramKeys {
		if name, ok := plainName(k.Pattern); ok {
			out[i] = keyMatcher{literal: name}
			continue
		}
		out[i] = keyMatcher{sections: patternSections(k.Pattern), re: sync.OnceValue(func() *regexp.Regexp {
			return regexp.MustCompile(`^(?:` + k.Pattern + `)$`)
		})}
	}
	return out
})

// match reports whether the lower-case name matches.
func (m keyMatcher) match(norm string) bool {
	if m.re == nil {
		return norm == m.literal
	}
	for _, sec := range m.sections {
		if strings.HasPrefix(norm, sec) {
			return m.re().MatchString(norm)
		}
	}
	return false
}

// plainName returns the name a pattern made only of lower-case letters,
// digits and `\.` matches, and false for any other pattern.
func plainName(pattern string) (string, bool) {
	name := strings.ReplaceAll(pattern, `\.`, ".")
	for _, r := range name {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '.' {
			return "", false
		}
	}
	return name, true
}

// patternSections are the words a name matching pattern starts with: the
// alternatives of a leading group, else the text before the first `\.`.
func patternSections(p string) []string {
	if strings.HasPrefix(p, "(") {
		alts, _, _ := strings.Cut(p[1:], ")")
		return strings.Split(alts, "|")
	}
	s, _, _ := strings.Cut(p, `\.`)
	return []string{s}
}

// LookupProgramKey returns the entry of ProgramKeys that the setting
// name ("section.key" or "section.sub.key", any case) matches.
func LookupProgramKey(name string) (ProgramKey, bool) {
	norm := strings.ToLower(name)
	for i, m := range programKeyMatchers() {
		if m.match(norm) {
			return ProgramKeys[i], true
		}
	}
	return ProgramKey{}, false
}

// ProgramSections are the config sections of ProgramKeys, for git's own
// --get-regexp (a superset: names are checked again with
// LookupProgramKey).
func ProgramSections() []string {
	var out []string
	for _, k := range ProgramKeys {
		for _, s := range patternSections(k.Pattern) {
			if !contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// AlwaysConfig are the settings every git aidex runs gets: the Always
// program keys at their neutral value, then SafetyConfig.
func AlwaysConfig() [][2]string {
	var out [][2]string
	for _, k := range ProgramKeys {
		if k.Always {
			out = append(out, [2]string{alwaysName(k.Pattern), k.Neutral})
		}
	}
	return append(out, SafetyConfig[:]...)
}

// alwaysName spells an Always key's pattern as git documents it.
func alwaysName(p string) string {
	switch p {
	case `core\.hookspath`:
		return "core.hooksPath"
	}
	return strings.ReplaceAll(p, `\.`, ".")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
