package plugin

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Marketplace is a marketplace's .claude-plugin/marketplace.json: Name
// (kebab-case), Owner, Description, Version, and the Plugins it lists.
// Root is the marketplace's folder (where relative sources start, below
// metadata.pluginRoot when set).
type Marketplace struct {
	Name        string
	Owner       Author
	Description string
	Version     string
	Plugins     []Entry
	Root        string
	PluginRoot  string
}

// Entry is one plugin a marketplace lists: its Name, Source, Description
// and Version.
type Entry struct {
	Name        string
	Description string
	Version     string
	Source      Source
}

// Source is where a plugin comes from: Path, a folder relative to the
// marketplace's root (slash-separated, never leaving it), or URL, a git
// repository (Ref a branch or tag, "" for the default one).
type Source struct {
	Path string
	URL  string
	Ref  string
}

// String is the source as a user writes it.
func (s Source) String() string {
	if s.URL != "" {
		if s.Ref != "" {
			return s.URL + "#" + s.Ref
		}
		return s.URL
	}
	return s.Path
}

// The keys of marketplace.json and of its plugin entries.
var (
	marketKeys       = []string{"name", "owner", "plugins", "metadata", "description", "version"}
	marketQuiet      = []string{"$schema"}
	entryKeys        = []string{"name", "source", "description", "version", "author", "homepage", "repository", "license", "keywords", "category", "tags"}
	entryUnsupported = []string{"strict", "commands", "agents", "skills", "hooks", "mcpServers", "lspServers", "outputStyles"}
)

// ParseMarketplace decodes marketplace.json (file names it in messages;
// root is the marketplace's folder). Unknown keys are warnings naming the
// file and line. Errors: not a JSON object, no valid name, "plugins" not
// a list, an entry without a valid name or with a source aidex cannot
// fetch (an absolute path, one leaving the marketplace, an unknown kind).
func ParseMarketplace(file, root string, data []byte) (Marketplace, []string, error) {
	m := Marketplace{Root: root}
	raw, err := decodeObject(file, data)
	if err != nil {
		return m, nil, err
	}
	warns := unknownKeys(file, data, raw, marketKeys, nil, marketQuiet)
	_ = json.Unmarshal(raw["name"], &m.Name)
	_ = json.Unmarshal(raw["description"], &m.Description)
	_ = json.Unmarshal(raw["version"], &m.Version)
	m.Owner = parseAuthor(raw["owner"])
	var meta struct {
		Description, Version, PluginRoot string
	}
	_ = json.Unmarshal(raw["metadata"], &meta)
	m.PluginRoot = meta.PluginRoot
	if m.Description == "" {
		m.Description = meta.Description
	}
	if m.Version == "" {
		m.Version = meta.Version
	}
	if !ValidName(m.Name) {
		return m, warns, fmt.Errorf("plugin: %s: marketplace name %q is not kebab-case: use lower-case letters, digits and '-'", file, m.Name)
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(raw["plugins"], &entries); err != nil {
		return m, warns, fmt.Errorf("plugin: %s: \"plugins\" must be a list of {\"name\": ..., \"source\": ...}: %v", file, err)
	}
	for i, e := range entries {
		en, w, err := parseEntry(file, data, e, m.PluginRoot)
		warns = append(warns, w...)
		if err != nil {
			return m, warns, fmt.Errorf("plugin: %s: plugin %d: %w", file, i+1, err)
		}
		m.Plugins = append(m.Plugins, en)
	}
	return m, warns, nil
}

// parseEntry reads one plugin entry of a marketplace.
func parseEntry(file string, data []byte, e map[string]json.RawMessage, pluginRoot string) (Entry, []string, error) {
	var en Entry
	warns := unknownKeys(file, data, e, entryKeys, entryUnsupported, nil)
	_ = json.Unmarshal(e["name"], &en.Name)
	_ = json.Unmarshal(e["description"], &en.Description)
	_ = json.Unmarshal(e["version"], &en.Version)
	if !ValidName(en.Name) {
		return en, warns, fmt.Errorf("name %q is not kebab-case", en.Name)
	}
	src, err := parseSource(e["source"], pluginRoot)
	if err != nil {
		return en, warns, fmt.Errorf("%s: %w", en.Name, err)
	}
	en.Source = src
	return en, warns, nil
}

// parseSource reads an entry's source: a relative path or a git URL, or
// an object {"source": "github", "repo": "OWNER/REPO"} or {"source":
// "url"|"git", "url": URL}, with an optional "ref".
func parseSource(v json.RawMessage, pluginRoot string) (Source, error) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if IsGitURL(s) {
			return Source{URL: s}, nil
		}
		return relSource(s, pluginRoot)
	}
	var o struct {
		Source, Repo, URL, Ref, Path string
	}
	if err := json.Unmarshal(v, &o); err != nil {
		return Source{}, fmt.Errorf("\"source\" must be a path, a git URL or {\"source\": \"github\", \"repo\": \"OWNER/REPO\"}")
	}
	switch o.Source {
	case "github":
		if strings.Count(o.Repo, "/") != 1 {
			return Source{}, fmt.Errorf("a github source needs \"repo\": \"OWNER/REPO\", not %q", o.Repo)
		}
		return Source{URL: "https://github.com/" + o.Repo + ".git", Ref: o.Ref}, nil
	case "url", "git":
		if !IsGitURL(o.URL) {
			return Source{}, fmt.Errorf("%q is not a git URL", o.URL)
		}
		return Source{URL: o.URL, Ref: o.Ref}, nil
	case "directory", "path":
		return relSource(o.Path, pluginRoot)
	}
	return Source{}, fmt.Errorf("source kind %q is not one aidex fetches (github, url, git, a relative path)", o.Source)
}

// relSource checks a relative source path: slash-separated below the
// marketplace's root (pluginRoot prefixed to a bare name), never leaving
// it.
func relSource(p, pluginRoot string) (Source, error) {
	if p == "" || path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return Source{}, fmt.Errorf("source %q must be a path relative to the marketplace (./plugins/NAME) or a git URL", p)
	}
	if pluginRoot != "" && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") {
		p = path.Join(pluginRoot, p)
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return Source{}, fmt.Errorf("source %q leaves the marketplace's folder", p)
	}
	return Source{Path: clean}, nil
}

// Find returns the entry called name.
func (m Marketplace) Find(name string) (Entry, bool) {
	for _, e := range m.Plugins {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// LoadMarketplace reads root's .claude-plugin/marketplace.json. Errors:
// as ParseMarketplace's; the file is missing or unreadable.
func LoadMarketplace(root string) (Marketplace, []string, error) {
	file := filepath.Join(root, ManifestDir, MarketplaceFile)
	data, err := readCapped(file)
	if err != nil {
		return Marketplace{Root: root}, nil, fmt.Errorf("plugin: %s is no marketplace (%v): a marketplace has %s/%s", root, err, ManifestDir, MarketplaceFile)
	}
	return ParseMarketplace(file, root, data)
}
