package config

import (
	"fmt"
	"strings"
)

// OldName maps a config key of the Python AIdex and Nexus Code to its
// aidex name: "<provider>_api_key" (openrouter_api_key, groq_api_key, ...;
// not image_api_key, which aidex keeps) is providers.<provider>.api_key.
// ok is false for any other key. Files and `aidex config set` read old
// names as these aliases with a one-line deprecation notice
// (DeprecationNotice).
func OldName(key string) (newKey string, ok bool) {
	name, found := strings.CutSuffix(key, "_api_key")
	if !found || key == "image_api_key" || name == "" || strings.ContainsAny(name, ". \"'[]") {
		return "", false
	}
	return "providers." + name + ".api_key", true
}

// DeprecationNotice is the one-line notice of an old key name read as
// newKey.
func DeprecationNotice(old, newKey string) string {
	return fmt.Sprintf("%s is an old name, read as %s: rename it (aidex config set %s KEY)", old, newKey, newKey)
}

// aliasPath returns the key path an old top-level name stands for.
func aliasPath(p []string) ([]string, bool) {
	if len(p) != 1 {
		return nil, false
	}
	nk, ok := OldName(p[0])
	if !ok {
		return nil, false
	}
	return strings.Split(nk, "."), true
}
