package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
)

// ImportLegacy converts the Python AIdex's config.json (p.LegacyFile) into the global TOML
// file (p.ConfigFile) once: it does nothing when config.toml exists (its existence marks the
// import done) or config.json does not. Keys with the same names map directly; API keys per
// provider ("api_keys": {"openrouter": "..."} or "openrouter_api_key") become
// [providers.NAME] api_key. Unknown keys, invalid values and, when knownProviders is given,
// keys of providers outside it are left out, each with a Warning. The JSON file is left in
// place. It reports whether config.toml was written.
//
// Errors: config.json is not a JSON object; I/O failures.
func ImportLegacy(p Paths, knownProviders ...string) (imported bool, warnings []Warning, err error) {
	return importLegacy(p, specs(), knownProviders)
}

// importLegacy is ImportLegacy checking values against the key specs ss.
func importLegacy(p Paths, ss []keySpec, knownProviders []string) (imported bool, warnings []Warning, err error) {
	if _, err := os.Stat(p.ConfigFile); err == nil || !errors.Is(err, fs.ErrNotExist) {
		if err != nil {
			return false, nil, fmt.Errorf("config: %w", err)
		}
		return false, nil, nil
	}
	data, err := os.ReadFile(p.LegacyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("config: read %s: %w", p.LegacyFile, err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return false, nil, fmt.Errorf("config: %s is not a JSON object: %w", p.LegacyFile, err)
	}
	li := legacyImport{file: p.LegacyFile, known: knownProviders, ss: ss}
	li.object(nil, m)
	out := []byte("# Imported from " + p.LegacyFile + " by aidex.\n")
	for _, e := range li.entries {
		if out, err = setInDoc(out, e.path, e.literal); err != nil {
			li.warn(displayPath(e.path), "not imported: "+err.Error())
		}
	}
	if err := writeChecked(p.ConfigFile, out); err != nil {
		return false, li.warnings, err
	}
	return true, li.warnings, nil
}

type legacyEntry struct {
	path    []string
	literal string
}

type legacyImport struct {
	file     string
	known    []string
	ss       []keySpec
	entries  []legacyEntry
	warnings []Warning
	text     bool // values are text (an INI file): convert them as `aidex config set` does
}

func (li *legacyImport) warn(key, msg string) {
	li.warnings = append(li.warnings, Warning{File: li.file, Key: key, Message: fmt.Sprintf("%s: %s", key, msg)})
}

func (li *legacyImport) object(path []string, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		if v == nil || v == "" {
			continue
		}
		p := append(slices.Clone(path), k)
		sub, isMap := v.(map[string]any)
		switch {
		case len(path) == 0 && k == "api_keys" && isMap:
			li.apiKeys(sub)
		case len(path) == 0 && strings.HasSuffix(k, "_api_key") && k != "image_api_key":
			li.add([]string{"providers", strings.TrimSuffix(k, "_api_key"), "api_key"}, v)
		case isTablePath(p) && isMap:
			li.object(p, sub)
		default:
			li.add(p, v)
		}
	}
}

func (li *legacyImport) apiKeys(m map[string]any) {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if m[name] != nil && m[name] != "" {
			li.add([]string{"providers", name, "api_key"}, m[name])
		}
	}
}

func (li *legacyImport) add(path []string, v any) {
	key := displayPath(path)
	s, provider, ok := lookupSpec(li.ss, path)
	if !ok {
		li.warn(key, "unknown key, not imported")
		return
	}
	if s.provider && li.known != nil && !slices.Contains(li.known, provider) {
		li.warn(key, fmt.Sprintf("provider %q is not in the catalog, not imported", provider))
		return
	}
	tv, err := fromDecoded(s.kind, v)
	if str, isStr := v.(string); isStr && li.text {
		tv, err = fromString(s.kind, str)
	}
	if err == nil {
		err = validate(s, tv)
	}
	if err != nil {
		li.warn(key, fmt.Sprintf("%v, not imported", err))
		return
	}
	li.entries = append(li.entries, legacyEntry{path: path, literal: tomlLiteral(tv)})
}
