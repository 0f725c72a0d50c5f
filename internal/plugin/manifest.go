// Package plugin reads, installs and enables Claude Code plugins and
// marketplaces.
//
// A plugin is a folder with .claude-plugin/plugin.json ([Manifest]) that
// bundles commands, agents, skills, hooks and MCP servers; [Load]
// resolves where each piece is (the manifest's paths or inline objects,
// and the default layout: commands/, agents/, skills/, hooks/hooks.json,
// .mcp.json). The pieces are read by aidex's own loaders (slashcmd,
// subagent, skills, hooks, config's .mcp.json parser): a plugin is one
// more source root for each, never a loader of its own. What a plugin
// runs is approved through the content review (internal/trust) by the
// application, keyed by the plugin's folder and [TreeDigest], so that an
// update that changes any file of the plugin is reviewed again.
//
// A marketplace is a folder or git repository with
// .claude-plugin/marketplace.json ([Marketplace]) listing plugins and
// where each comes from. [Store] keeps installed plugins and known
// marketplaces under aidex's data directory; enablement is the
// "enabledPlugins" object of settings files, as Claude Code has it
// ([ReadEnabled], [SetEnabled]).
package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// The manifest's folder and files below a plugin's or a marketplace's
// root.
const (
	ManifestDir     = ".claude-plugin"
	ManifestFile    = "plugin.json"
	MarketplaceFile = "marketplace.json"
)

// maxManifestBytes caps plugin.json and marketplace.json.
const maxManifestBytes = 1 << 20

// Author is a plugin's or a marketplace owner's contact: name, e-mail,
// URL (each may be "").
type Author struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

// Component is where one kind of a plugin's content is: Paths relative
// to the plugin's root ("./commands/extra", "./hooks/more.json"), or an
// Inline JSON object (hooks: {"EVENT": [...]} or {"hooks": {...}}; MCP
// servers: {"NAME": {...}}).
type Component struct {
	Paths  []string
	Inline json.RawMessage
}

// Manifest is a plugin's .claude-plugin/plugin.json. Name is required
// (kebab-case: lower-case letters, digits, '-', '.', '_'); the other
// fields are optional. Commands, Agents and Skills are paths that add to
// the default folders; Hooks and MCPServers are paths or inline objects
// that add to hooks/hooks.json and .mcp.json.
type Manifest struct {
	Name        string
	Version     string
	Description string
	Author      Author
	Homepage    string
	Repository  string
	License     string
	Keywords    []string
	Commands    []string
	Agents      []string
	Skills      []string
	Hooks       Component
	MCPServers  Component
}

// The keys of plugin.json aidex reads; those of Claude Code's it does not
// use (a one-line warning says so); and those it ignores without one.
var (
	manifestKeys   = []string{"name", "version", "description", "author", "homepage", "repository", "license", "keywords", "commands", "agents", "skills", "hooks", "mcpServers"}
	unsupportedKey = []string{"outputStyles", "lspServers", "userConfig", "channels", "monitors", "themes", "dependencies", "settings", "bin"}
	quietKey       = []string{"$schema", "category", "tags", "strict", "source", "id"}
)

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`) })

// ValidName reports whether s can name a plugin or a marketplace:
// kebab-case, 1 to 64 of lower-case letters, digits, '-', '.', '_',
// starting with a letter or digit (no ':' or '@', which separate a
// plugin's name from its items and its marketplace).
func ValidName(s string) bool { return validName().MatchString(s) }

// ParseManifest decodes plugin.json (file names it in messages). An
// unknown key, or a key of Claude Code's that aidex does not use, is a
// warning "FILE:LINE: ..." and is ignored. Errors: not a JSON object, a
// field of the wrong type, a missing or invalid name; each names the file
// and the fix.
func ParseManifest(file string, data []byte) (Manifest, []string, error) {
	var m Manifest
	raw, err := decodeObject(file, data)
	if err != nil {
		return m, nil, err
	}
	warns := unknownKeys(file, data, raw, manifestKeys, unsupportedKey, quietKey)
	var errs []string
	str := func(key string, dst *string) {
		if v, ok := raw[key]; ok && json.Unmarshal(v, dst) != nil {
			errs = append(errs, fmt.Sprintf("%q must be a string", key))
		}
	}
	str("name", &m.Name)
	str("version", &m.Version)
	str("description", &m.Description)
	str("homepage", &m.Homepage)
	str("license", &m.License)
	m.Repository = looseString(raw["repository"])
	m.Author = parseAuthor(raw["author"])
	if v, ok := raw["keywords"]; ok && json.Unmarshal(v, &m.Keywords) != nil {
		errs = append(errs, `"keywords" must be a list of strings`)
	}
	for key, dst := range map[string]*[]string{"commands": &m.Commands, "agents": &m.Agents, "skills": &m.Skills} {
		c, err := parseComponent(raw[key], false)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%q %v", key, err))
		}
		*dst = c.Paths
	}
	if m.Hooks, err = parseComponent(raw["hooks"], true); err != nil {
		errs = append(errs, fmt.Sprintf(`"hooks" %v`, err))
	}
	if m.MCPServers, err = parseComponent(raw["mcpServers"], true); err != nil {
		errs = append(errs, fmt.Sprintf(`"mcpServers" %v`, err))
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return m, warns, fmt.Errorf("plugin: %s: %s", file, strings.Join(errs, "; "))
	}
	return m, warns, nil
}

// decodeObject decodes data as a JSON object of raw values. Errors name
// file.
func decodeObject(file string, data []byte) (map[string]json.RawMessage, error) {
	if len(data) > maxManifestBytes {
		return nil, fmt.Errorf("plugin: %s is %d bytes, over the %d-byte limit of a manifest", file, len(data), maxManifestBytes)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		if err == nil {
			err = fmt.Errorf("null")
		}
		return nil, fmt.Errorf("plugin: %s is not a JSON object (%v): fix its syntax", file, err)
	}
	return raw, nil
}

// parseComponent reads a component field: a path, a list of paths, or
// (when inline is allowed) an object. Absent or null is the zero value.
func parseComponent(v json.RawMessage, inline bool) (Component, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return Component{}, nil
	}
	var one string
	if json.Unmarshal(v, &one) == nil {
		return Component{Paths: []string{one}}, nil
	}
	var list []string
	if json.Unmarshal(v, &list) == nil {
		return Component{Paths: list}, nil
	}
	if inline && v[0] == '{' {
		return Component{Inline: v}, nil
	}
	if inline {
		return Component{}, fmt.Errorf("must be a path, a list of paths or an object")
	}
	return Component{}, fmt.Errorf("must be a path or a list of paths")
}

// parseAuthor reads "author": an object {name, email, url} or a string
// (the name); other shapes give the zero Author.
func parseAuthor(v json.RawMessage) Author {
	var a Author
	if json.Unmarshal(v, &a) == nil {
		return a
	}
	var name string
	_ = json.Unmarshal(v, &name)
	return Author{Name: name}
}

// looseString reads a string, or an object's "url" (npm's repository
// shape).
func looseString(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var o struct{ URL string }
	_ = json.Unmarshal(v, &o)
	return o.URL
}

// unknownKeys warns, one line each naming file and line, about raw's
// keys that are not in known (a key of unsupported says that aidex does
// not use it; a key of quiet gives no warning).
func unknownKeys(file string, data []byte, raw map[string]json.RawMessage, known, unsupported, quiet []string) []string {
	var out []string
	for _, k := range sortedKeys(raw) {
		if slices.Contains(known, k) || slices.Contains(quiet, k) {
			continue
		}
		where := file
		if n := keyLine(data, k); n > 0 {
			where = fmt.Sprintf("%s:%d", file, n)
		}
		if slices.Contains(unsupported, k) {
			out = append(out, fmt.Sprintf("%s: Claude Code's %q is not supported by aidex; ignored", where, k))
			continue
		}
		out = append(out, fmt.Sprintf("%s: unknown key %q ignored; known keys: %s", where, k, strings.Join(known, ", ")))
	}
	return out
}

// keyLine is the 1-based line of the first `"key":` of data (0: none).
func keyLine(data []byte, key string) int {
	q, _ := json.Marshal(key)
	for from := 0; ; {
		i := bytes.Index(data[from:], q)
		if i < 0 {
			return 0
		}
		i += from
		rest := bytes.TrimLeft(data[i+len(q):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return bytes.Count(data[:i], []byte{'\n'}) + 1
		}
		from = i + len(q)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
