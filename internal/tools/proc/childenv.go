package proc

import (
	"runtime"
	"slices"
	"strings"
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

// secretEnvPrefixes are provider and agent variable prefixes dropped from
// child environments whatever the rest of the name (API keys, base URLs
// with embedded credentials, organisation ids).
var secretEnvPrefixes = [...]string{
	"ANTHROPIC_", "OPENAI_", "AZURE_OPENAI_", "CLAUDE_", "GEMINI_", "GOOGLE_API",
	"GOOGLE_GENERATIVE", "VERTEX", "MISTRAL_", "GROQ_", "DEEPSEEK_", "OPENROUTER_",
	"XAI_", "TOGETHER_", "FIREWORKS_", "CEREBRAS_", "COHERE_", "PERPLEXITY_",
	"MOONSHOT_", "DASHSCOPE_", "ZAI_", "ZHIPU", "HF_", "HUGGING", "REPLICATE_",
}

// secretEnvWords are name components (split at '_', upper case) that make
// a variable secret: an exact component, or one ending in it
// ("APIKEY", "ACCESSKEY") unless listed in exactSecretWords.
var secretEnvWords = [...]string{
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE",
	"CREDENTIAL", "CREDENTIALS", "COOKIE", "PAT", "AUTH",
}

// exactSecretWords match only as a whole component ("PAT" but not "PATH"
// or "XPAT"; "AUTH" but not "OAUTH").
var exactSecretWords = [...]string{"PAT", "AUTH"}

// secretValuePrefixes are value prefixes of well-known credential formats
// (OpenAI/Anthropic "sk-", GitHub "ghp_"/"github_pat_", Slack "xox", AWS
// access key ids "AKIA", Google "AIza", GitLab "glpat-").
var secretValuePrefixes = [...]string{
	"sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxb-", "xoxp-",
	"xoxa-", "AKIA", "ASIA", "AIza", "glpat-", "hf_", "npm_",
}

// SecretEnvName reports whether an environment variable of this name is
// treated as a credential and kept out of the processes tools start:
// names with a component KEY, TOKEN, SECRET, PASSWORD, CREDENTIALS, ...
// (OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, AWS_ACCESS_KEY_ID,
// NPM_CONFIG__AUTH, DB_PASSWORD) and every variable of a model provider
// (ANTHROPIC_*, OPENAI_*, GEMINI_*, ...). Comparison ignores case.
func SecretEnvName(name string) bool {
	n := strings.ToUpper(name)
	if slices.Contains(keepEnvNames[:], n) {
		return false
	}
	for _, p := range secretEnvPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for part := range strings.SplitSeq(n, "_") {
		for _, w := range secretEnvWords {
			if part == w || (!slices.Contains(exactSecretWords[:], w) && strings.HasSuffix(part, w)) {
				return true
			}
		}
	}
	return false
}

// secretEnvValue reports whether a value looks like a well-known token,
// whatever the variable is called.
func secretEnvValue(v string) bool {
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

// keepEnvNames are never secret even when a rule above matches them
// (SSH_AUTH_SOCK is a socket path, not a key).
var keepEnvNames = [...]string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TMPDIR", "SSH_AUTH_SOCK"}

// ChildEnviron returns the environment for a process a tool starts: base
// (usually os.Environ()) without credentials (SecretEnvName names and
// values that look like well-known tokens, unless the name is in keep,
// compared ignoring case), without OLDPWD and CDPATH (childEnvUnset), and
// with NO_COLOR=1, GIT_TERMINAL_PROMPT=0, PAGER=cat and GIT_PAGER=cat set. Entries are "NAME=value"; malformed
// entries are dropped. The result is a new slice.
func ChildEnviron(base []string, keep []string) []string {
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
		kept := slices.ContainsFunc(keep, func(k string) bool { return sameEnvName(k, name) })
		if !kept && (SecretEnvName(name) || secretEnvValue(val)) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, childEnvOverrides[:]...)
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
