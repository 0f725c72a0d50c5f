package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// RootVar is the variable a plugin's hook commands and MCP servers use
// for the plugin's folder: ${CLAUDE_PLUGIN_ROOT} is replaced by it, and
// hook commands get it in their environment.
const RootVar = "CLAUDE_PLUGIN_ROOT"

// Plugin is one plugin folder, resolved: Name (the manifest's, else the
// name it was installed under), Root (absolute, symbolic links resolved)
// and where each kind of its content is. CommandDirs, AgentDirs and
// SkillDirs are existing folders or files (commands and agents) inside
// Root; HookFiles and MCPFiles existing JSON files inside Root (a hooks
// file is {"hooks": {EVENT: [...]}}, an MCP file {"mcpServers": {...}});
// InlineHooks and InlineMCP are the manifest's inline objects in those
// same shapes (nil: none). Warnings are the manifest's and the paths'
// problems, one line each naming the file.
type Plugin struct {
	Name        string
	Root        string
	Manifest    Manifest
	CommandDirs []string
	AgentDirs   []string
	SkillDirs   []string
	HookFiles   []string
	InlineHooks json.RawMessage
	MCPFiles    []string
	InlineMCP   json.RawMessage
	Warnings    []string
}

// ManifestPath is root's .claude-plugin/plugin.json.
func ManifestPath(root string) string { return filepath.Join(root, ManifestDir, ManifestFile) }

// Load reads the plugin in root. The manifest is optional (Claude Code's
// rule): without one the plugin is named name and has the default
// layout. Paths of the manifest that do not exist, or that leave root
// (once symbolic links are resolved), are warnings and left out.
// Errors: root is not a folder; the manifest cannot be read or is
// invalid (see [ParseManifest]); no valid name (kebab-case) from the
// manifest or name.
func Load(root, name string) (Plugin, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Plugin{}, fmt.Errorf("plugin: %w", err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return Plugin{}, fmt.Errorf("plugin: %w", err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return Plugin{}, fmt.Errorf("plugin: %s is not a folder: give the plugin's folder (the one holding %s/%s)", root, ManifestDir, ManifestFile)
	}
	p := Plugin{Root: real, Name: name}
	file := ManifestPath(real)
	data, err := readCapped(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return p, fmt.Errorf("plugin: read %s: %w", file, err)
	default:
		m, warns, err := ParseManifest(file, data)
		p.Warnings = append(p.Warnings, warns...)
		if err != nil {
			return p, err
		}
		p.Manifest = m
		if m.Name != "" {
			p.Name = m.Name
		}
	}
	if !ValidName(p.Name) {
		return p, fmt.Errorf("plugin: %s: name %q is not kebab-case: use lower-case letters, digits and '-' (at most 64), as Claude Code requires", file, p.Name)
	}
	p.resolve(file)
	return p, nil
}

// resolve fills the content paths: the default layout, then the
// manifest's paths (which add to it), each kept once.
func (p *Plugin) resolve(file string) {
	m := p.Manifest
	p.CommandDirs = p.paths(file, "commands", append([]string{"commands"}, m.Commands...), true)
	p.AgentDirs = p.paths(file, "agents", append([]string{"agents"}, m.Agents...), true)
	p.SkillDirs = p.paths(file, "skills", append([]string{"skills"}, m.Skills...), true)
	p.HookFiles = p.paths(file, "hooks", append([]string{filepath.Join("hooks", "hooks.json")}, m.Hooks.Paths...), false)
	p.MCPFiles = p.paths(file, "mcpServers", append([]string{".mcp.json"}, m.MCPServers.Paths...), false)
	p.InlineHooks = inlineHooks(m.Hooks.Inline)
	if m.MCPServers.Inline != nil {
		p.InlineMCP, _ = json.Marshal(map[string]json.RawMessage{"mcpServers": m.MCPServers.Inline})
	}
}

// inlineHooks gives an inline "hooks" object the shape of a hooks file.
func inlineHooks(v json.RawMessage) json.RawMessage {
	if v == nil {
		return nil
	}
	var o map[string]json.RawMessage
	if json.Unmarshal(v, &o) == nil {
		if _, ok := o["hooks"]; ok {
			return v
		}
	}
	out, _ := json.Marshal(map[string]json.RawMessage{"hooks": v})
	return out
}

// paths resolves rels (the first is the default, which may be missing
// without a warning) against the plugin's root: each must exist and stay
// inside it. dirs allows files too (a command or agent file).
func (p *Plugin) paths(file, key string, rels []string, dirs bool) []string {
	var out []string
	for i, rel := range rels {
		abs, err := p.inside(rel)
		if err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %q path %q: %v; left out", file, key, rel, err))
			continue
		}
		st, err := os.Stat(abs)
		if err != nil {
			if i > 0 {
				p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %q path %q does not exist; left out", file, key, rel))
			}
			continue
		}
		if !dirs && st.IsDir() {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %q path %q is a folder, not a JSON file; left out", file, key, rel))
			continue
		}
		if !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out
}

// inside resolves rel (relative to the root, "./" optional) and checks
// that it stays inside the root once symbolic links are resolved.
func (p *Plugin) inside(rel string) (string, error) {
	if rel == "" || strings.ContainsRune(rel, 0) {
		return "", errors.New("is empty")
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || filepath.VolumeName(rel) != "" {
		return "", errors.New("must be relative to the plugin's folder (start it with ./)")
	}
	abs := filepath.Join(p.Root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs // missing: the caller says so
	}
	if r, err := filepath.Rel(p.Root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", errors.New("leaves the plugin's folder")
	}
	return real, nil
}

// readCapped reads a manifest of at most maxManifestBytes.
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxManifestBytes {
		return nil, fmt.Errorf("%d bytes is over the %d-byte limit of a manifest", st.Size(), maxManifestBytes)
	}
	buf := make([]byte, st.Size())
	_, err = io.ReadFull(f, buf)
	return buf, err
}
