package shell

import (
	"slices"
	"strings"
)

// harmlessEnv are the variables an assignment in front of a command may
// set and keep it what it was: they choose a language, a time zone,
// colours or a terminal size, and no program reads a file name, an option
// or a program to run from them. Everything else is unknown: many tools
// read options or programs from variables of their own (GIT_DIR,
// GIT_CONFIG_*, LD_PRELOAD, PATH, BASH_ENV, PAGER, EDITOR, TAR_OPTIONS,
// GREP_OPTIONS, LESSOPEN, RIPGREP_CONFIG_PATH, GCONV_PATH, ...).
var harmlessEnv = set("LANG LANGUAGE TZ NO_COLOR FORCE_COLOR CLICOLOR CLICOLOR_FORCE TERM COLUMNS LINES")

// placeVars change where cd and ~ lead (CDPATH, HOME, PWD for dash's
// cd .., OLDPWD for cd -): a line that sets them has directories the
// analysis cannot confine.
var placeVars = set("CDPATH HOME PWD OLDPWD")

// isHarmlessEnv reports a variable on the harmless list (LC_* included).
func isHarmlessEnv(name string) bool {
	return harmlessEnv[name] || strings.HasPrefix(name, "LC_") && isName(name)
}

// envStyle reports an environment-style name (upper case, digits, _),
// which an assignment may change in the environment of later commands:
// assigning a variable the environment already has changes it there.
func envStyle(name string) bool {
	letter := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			letter = true
		case r == '_' || r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return letter
}

// envReason says why an assignment in front of a command makes it unknown.
func envReason(names []string) string {
	return "sets " + strings.Join(names, ", ") + " for the command; only LANG, LC_*, TZ, NO_COLOR, TERM, COLUMNS " +
		"and the like are known not to change what a command reads or runs"
}

// placeReason says why a line that moves cd or ~ is unknown.
func placeReason(what string) string {
	return what + " changes where cd and ~ lead, so the analysis cannot confine the directories of the line"
}

// envGlobal records a plain assignment (NAME=value, for NAME in, declare,
// ${NAME:=value}) that may change what later commands run.
func (z *analyzer) envGlobal(name string, f *varFacts) {
	if placeVars[name] {
		z.opaque(placeReason("setting " + name))
	}
	if isDangerousEnv(name) || !isHarmlessEnv(name) && (envStyle(name) || f.allexport) {
		z.envChange(name)
	}
}

// envExport records an exported variable (export NAME, declare -x NAME).
func (z *analyzer) envExport(name string) {
	if placeVars[name] {
		z.opaque(placeReason("setting " + name))
	}
	if !isHarmlessEnv(name) {
		z.envChange(name)
	}
}

func (z *analyzer) envChange(name string) {
	if !slices.Contains(z.a.EnvChanges, name) {
		z.a.EnvChanges = append(z.a.EnvChanges, name)
	}
}
