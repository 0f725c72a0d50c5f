package proc

import (
	"runtime"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/tools"
)

// childEnvOverrides are set in every child environment: no colours, no
// pagers and no interactive git credential prompts (stdin is closed, a
// prompt would only hang until the timeout).
var childEnvOverrides = [...]string{
	"NO_COLOR=1",
	"GIT_TERMINAL_PROMPT=0",
	"PAGER=cat",
	"GIT_PAGER=cat",
}

// childEnvUnset are removed from every child environment: with OLDPWD
// and CDPATH unset, "cd -" fails and "cd DIR" goes where the command line
// says, which is what the permission analysis checked.
var childEnvUnset = [...]string{"OLDPWD", "CDPATH"}

// nameMatch is how a secretNameRules entry matches an upper-case name.
type nameMatch int

const (
	namePrefix    nameMatch = iota // the name starts with text
	nameSuffix                     // the name ends with text
	nameWord                       // a '_'-separated component is text or ends in it ("APIKEY")
	nameWordExact                  // a component is exactly text ("PAT" but not "PATH")
)

// nameRule is one row of secretNameRules.
type nameRule struct {
	match nameMatch
	text  string
}

// secretNameRules name the variables treated as credentials: the provider
// and agent prefixes (API keys, base URLs with embedded credentials,
// organisation ids), credential words (OPENAI_API_KEY, GITHUB_TOKEN,
// DB_PASSWORD, MYSQL_PWD, SENTRY_DSN, NPM_CONFIG__AUTH, GITLAB_PAT) and
// connection strings (DATABASE_URL, TEST_DATABASE_URL). keepEnvNames
// overrides them.
var secretNameRules = [...]nameRule{
	{namePrefix, "ANTHROPIC_"}, {namePrefix, "OPENAI_"}, {namePrefix, "AZURE_OPENAI_"}, {namePrefix, "CLAUDE_"},
	{namePrefix, "GEMINI_"}, {namePrefix, "GOOGLE_API"}, {namePrefix, "GOOGLE_GENERATIVE"}, {namePrefix, "VERTEX"},
	{namePrefix, "MISTRAL_"}, {namePrefix, "GROQ_"}, {namePrefix, "DEEPSEEK_"}, {namePrefix, "OPENROUTER_"},
	{namePrefix, "XAI_"}, {namePrefix, "TOGETHER_"}, {namePrefix, "FIREWORKS_"}, {namePrefix, "CEREBRAS_"},
	{namePrefix, "COHERE_"}, {namePrefix, "PERPLEXITY_"}, {namePrefix, "MOONSHOT_"}, {namePrefix, "DASHSCOPE_"},
	{namePrefix, "ZAI_"}, {namePrefix, "ZHIPU"}, {namePrefix, "HF_"}, {namePrefix, "HUGGING"}, {namePrefix, "REPLICATE_"},
	{nameWord, "KEY"}, {nameWord, "TOKEN"}, {nameWord, "SECRET"}, {nameWord, "PASSWORD"}, {nameWord, "PASSWD"},
	{nameWord, "PASSPHRASE"}, {nameWord, "CREDENTIAL"}, {nameWord, "CREDENTIALS"}, {nameWord, "COOKIE"},
	{nameWord, "DSN"},
	{nameWordExact, "PAT"}, {nameWordExact, "AUTH"}, {nameWordExact, "PWD"},
	{nameSuffix, "DATABASE_URL"}, {nameSuffix, "CONNECTION_STRING"},
}

// secretValuePrefixes are value prefixes of well-known credential formats
// (OpenAI/Anthropic "sk-", GitHub "ghp_"/"github_pat_", Slack "xox", AWS
// access key ids "AKIA", Google "AIza", GitLab "glpat-").
var secretValuePrefixes = [...]string{
	"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxb-", "xoxp-",
	"xoxa-", "AKIA", "ASIA", "AIza", "glpat-", "hf_", "npm_",
}

// keepEnvNames are never secret even when a rule above matches them
// (SSH_AUTH_SOCK is a socket path, not a key; PWD and OLDPWD are
// directories, not MYSQL_PWD).
var keepEnvNames = [...]string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TMPDIR", "SSH_AUTH_SOCK", "PWD", "OLDPWD",
}

// SecretEnvName reports whether an environment variable of this name is
// treated as a credential and kept out of the processes tools start (see
// secretNameRules): names with a component KEY, TOKEN, SECRET, PASSWORD,
// PASSWD, PWD, DSN, CREDENTIALS, ... (OPENAI_API_KEY, GITHUB_TOKEN,
// AWS_SECRET_ACCESS_KEY, AWS_ACCESS_KEY_ID, NPM_CONFIG__AUTH, DB_PASSWORD,
// SENTRY_DSN), names ending in DATABASE_URL or CONNECTION_STRING, and
// every variable of a model provider (ANTHROPIC_*, OPENAI_*, GEMINI_*,
// ...); never PATH, HOME, PWD, OLDPWD, SSH_AUTH_SOCK. Comparison ignores
// case.
func SecretEnvName(name string) bool {
	n := strings.ToUpper(name)
	if slices.Contains(keepEnvNames[:], n) {
		return false
	}
	return slices.ContainsFunc(secretNameRules[:], func(r nameRule) bool { return r.matches(n) })
}

// matches reports whether the upper-case name n matches the rule.
func (r nameRule) matches(n string) bool {
	switch r.match {
	case namePrefix:
		return strings.HasPrefix(n, r.text)
	case nameSuffix:
		return strings.HasSuffix(n, r.text)
	}
	for part := range strings.SplitSeq(n, "_") {
		if part == r.text || (r.match == nameWord && strings.HasSuffix(part, r.text)) {
			return true
		}
	}
	return false
}

// secretEnvValue reports whether a value looks like a credential whatever
// the variable is called: a well-known token format (secretValuePrefixes),
// a URL with user information (https://user:pass@host,
// postgres://u:p@db/x, https://TOKEN@github.com) or a PEM private key.
func secretEnvValue(v string) bool {
	if strings.Contains(v, "-----BEGIN") && strings.Contains(v, "PRIVATE KEY") {
		return true
	}
	if urlWithUserinfo(v) {
		return true
	}
	if len(v) < 16 || strings.ContainsAny(v, " /:") {
		return false
	}
	for _, p := range secretValuePrefixes {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// urlWithUserinfo reports whether v is SCHEME://USERINFO@HOST...: the
// authority (up to the first '/', '?' or '#') holds an '@'.
func urlWithUserinfo(v string) bool {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(v), "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, " \t/@") {
		return false
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndexByte(rest, '@')
	return at > 0
}

// EnvPolicy is the configured part of the scrubbing (tools.EnvPolicy):
// a runtime's, passed to ChildEnviron by every caller (a tool takes it
// from its tools.Env), never process-wide state.
type EnvPolicy = tools.EnvPolicy

// scrubbed reports whether the variable is kept out of a child
// environment: allowed names (keep, then the policy's Allow) pass; else
// SecretEnvName names, the policy's Secret names and secretEnvValue
// values are removed.
func scrubbed(name, val string, keep []string, pol EnvPolicy) bool {
	same := func(k string) bool { return sameEnvName(k, name) }
	if slices.ContainsFunc(keep, same) || slices.ContainsFunc(pol.Allow, same) {
		return false
	}
	return SecretEnvName(name) || slices.ContainsFunc(pol.Secret, same) || secretEnvValue(val)
}

// ChildEnviron returns the environment for a process a tool starts: base
// (usually os.Environ()) without credentials (SecretEnvName names, pol's
// Secret names and secretEnvValue values, unless the name is in keep or
// pol's Allow, compared ignoring case), without
// OLDPWD and CDPATH (childEnvUnset), and with
// NO_COLOR=1, GIT_TERMINAL_PROMPT=0, PAGER=cat and GIT_PAGER=cat set, and
// git's program-running settings neutralised (withGitNeutralised). Entries
// are "NAME=value"; malformed
// entries are dropped. The result is a new slice.
func ChildEnviron(base []string, keep []string, pol EnvPolicy) []string {
	out := make([]string, 0, len(base)+len(childEnvOverrides))
	overridden := func(name string) bool {
		for _, o := range childEnvOverrides {
			if sameEnvName(o[:strings.IndexByte(o, '=')], name) {
				return true
			}
		}
		return false
	}
	for _, kv := range base {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" && runtime.GOOS != "windows" {
			continue
		}
		if overridden(name) || slices.ContainsFunc(childEnvUnset[:], func(u string) bool { return sameEnvName(u, name) }) {
			continue
		}
		if scrubbed(name, val, keep, pol) {
			continue
		}
		out = append(out, kv)
	}
	return withGitNeutralised(append(out, childEnvOverrides[:]...))
}

// sameEnvName compares variable names as the OS does (ignoring case).
func sameEnvName(a, b string) bool { return strings.EqualFold(a, b) }

// EnvValue returns the value of name in environ ("" when unset).
func EnvValue(environ []string, name string) string {
	for i := len(environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(environ[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
