package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"
)

// Sources are the files hooks are read from. Empty names are skipped,
// missing files are no error.
//
// GlobalTOML is aidex's global config file, ClaudeGlobal the user's
// ~/.claude/settings.json: both always count. ProjectTOML (the project's
// .aidex/config.toml) and ClaudeProject (.claude/settings.json and
// .claude/settings.local.json of the project) count only when Trusted;
// otherwise their hooks are listed with Ignored set and never run.
type Sources struct {
	GlobalTOML    string
	ClaudeGlobal  string
	ProjectTOML   string
	ClaudeProject []string
	Trusted       bool
	// Plugins are enabled plugins' hooks, read last; whether they run
	// is the content review's (the caller marks unapproved ones Ignored).
	Plugins []PluginHooks
}

// PluginHooks are one plugin's hooks: Plugin its name, Root its folder
// (CLAUDE_PLUGIN_ROOT of its commands), Files its hooks files and Inline
// the manifest's inline hooks ({"hooks": {...}}; nil: none), read from
// Manifest (named in messages).
type PluginHooks struct {
	Plugin, Root string
	Files        []string
	Inline       []byte
	Manifest     string
}

// ProjectSources returns the Sources of a workspace: aidex's global file
// globalTOML, the user's Claude settings under home, and the project's
// .aidex/config.toml and .claude/settings{,.local}.json.
func ProjectSources(globalTOML, home, workspace string, trusted bool) Sources {
	s := Sources{GlobalTOML: globalTOML, Trusted: trusted}
	if home != "" {
		s.ClaudeGlobal = filepath.Join(home, ".claude", "settings.json")
	}
	if workspace != "" {
		s.ProjectTOML = filepath.Join(workspace, ".aidex", "config.toml")
		s.ClaudeProject = []string{filepath.Join(workspace, ".claude", "settings.json"),
			filepath.Join(workspace, ".claude", "settings.local.json")}
	}
	return s
}

// UntrustedNote is Hook.Ignored for the hooks of an untrusted project.
const UntrustedNote = "ignored: the project folder is not trusted (aidex trust)"

// Load reads the hooks of every source, in the order global TOML, Claude
// global, project TOML, Claude project files. Warnings name hooks that
// are skipped: an event aidex does not know (one line naming the file
// and line: a newer Claude Code's event must not stop aidex), a type
// other than "command", the problems of an untrusted project's files
// (whose hooks never run). Errors: an unreadable file, malformed JSON or
// TOML, a matcher that is not a regular expression, a hook without a
// command, a negative timeout; each names the file.
func Load(s Sources) ([]Hook, []string, error) {
	var all []Hook
	var warnings []string
	var errs []error
	add := func(file string, toml, project bool) {
		hs, ws, err := loadFile(file, toml)
		warnings = append(warnings, ws...)
		switch {
		case err != nil && project && !s.Trusted:
			// Its hooks would not run anyway: a cloned repository's
			// broken file must not stop aidex.
			warnings = append(warnings, err.Error()+" (the project folder is not trusted: its hooks are ignored)")
			return
		case err != nil:
			errs = append(errs, err)
			return
		}
		for i := range hs {
			if project && !s.Trusted {
				hs[i].Ignored = UntrustedNote
			}
		}
		all = append(all, hs...)
	}
	add(s.GlobalTOML, true, false)
	add(s.ClaudeGlobal, false, false)
	add(s.ProjectTOML, true, true)
	for _, f := range s.ClaudeProject {
		add(f, false, true)
	}
	for _, p := range s.Plugins {
		hs, ws, err := p.load()
		warnings = append(warnings, ws...)
		if err != nil {
			errs = append(errs, err)
		}
		all = append(all, hs...)
	}
	return all, warnings, errors.Join(errs...)
}

// load reads a plugin's hooks files and inline hooks, each hook marked
// with the plugin's name and folder.
func (p PluginHooks) load() ([]Hook, []string, error) {
	var out []Hook
	var warnings []string
	var errs []error
	for _, f := range p.Files {
		hs, ws, err := loadFile(f, false)
		out, warnings = append(out, hs...), append(warnings, ws...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if p.Inline != nil {
		hs, ws, err := parseFile(p.Manifest, p.Inline, false)
		out, warnings = append(out, hs...), append(warnings, ws...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	for i := range out {
		out[i].Plugin, out[i].PluginRoot = p.Plugin, p.Root
	}
	return out, warnings, errors.Join(errs...)
}

// group is one matcher with its hook commands (Claude's shape).
type group struct {
	Matcher string  `json:"matcher"`
	Hooks   []entry `json:"hooks"`
}

type entry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"` // seconds
	Sandbox *bool    `json:"sandbox"` // false: run outside the OS sandbox (aidex's key)
}

func loadFile(file string, isTOML bool) ([]Hook, []string, error) {
	if file == "" {
		return nil, nil, nil
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("hooks: read %s: %w", file, err)
	}
	return parseFile(file, data, isTOML)
}

// parseFile reads the hooks of one file's data (file names it).
func parseFile(file string, data []byte, isTOML bool) ([]Hook, []string, error) {
	var raw map[string]any
	var err error
	if isTOML {
		err = toml.Unmarshal(data, &raw)
	} else {
		err = json.Unmarshal(data, &raw)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("hooks: %s: %w", file, err)
	}
	section, ok := raw["hooks"]
	if !ok {
		return nil, nil, nil
	}
	// One decoder for both forms: the TOML tables are the JSON object.
	js, err := json.Marshal(section)
	if err != nil {
		return nil, nil, fmt.Errorf("hooks: %s: %w", file, err)
	}
	var byEvent map[string][]group
	if err := json.Unmarshal(js, &byEvent); err != nil {
		return nil, nil, fmt.Errorf("hooks: %s: \"hooks\" must map event names to lists of {\"matcher\": ..., \"hooks\": [{\"type\": \"command\", \"command\": ...}]}: %w", file, err)
	}
	return fromGroups(file, byEvent, func(name string) int { return eventLine(data, isTOML, name) })
}

// eventLine is the 1-based line of data where event name is configured
// (0: not found): the first `"name":` of a JSON file, the first
// `[[hooks.name]]` table (or `name =` key) of a TOML file.
func eventLine(data []byte, isTOML bool, name string) int {
	text := string(data)
	at := -1
	if isTOML {
		off := 0
		for line := range strings.Lines(text) {
			t := strings.TrimSpace(line)
			t = strings.NewReplacer(" ", "", "\t", "", "\"", "", "'", "").Replace(t)
			if strings.Contains(t, "hooks."+name+"]") || strings.Contains(t, "hooks."+name+".") ||
				strings.HasPrefix(t, name+"=") {
				at = off
				break
			}
			off += len(line)
		}
	} else {
		key := `"` + name + `"`
		for from := 0; at < 0; {
			i := strings.Index(text[from:], key)
			if i < 0 {
				break
			}
			i += from
			rest := strings.TrimLeft(text[i+len(key):], " \t\r\n")
			if strings.HasPrefix(rest, ":") {
				at = i
			}
			from = i + len(key)
		}
	}
	if at < 0 {
		return 0
	}
	return strings.Count(text[:at], "\n") + 1
}

func fromGroups(file string, byEvent map[string][]group, lineOf func(event string) int) ([]Hook, []string, error) {
	names := make([]string, 0, len(byEvent))
	for name := range byEvent {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Hook
	var warnings []string
	var errs []error
	for _, name := range names {
		ev, err := ParseEvent(name)
		if err != nil {
			where := file
			if n := lineOf(name); n > 0 {
				where = fmt.Sprintf("%s:%d", file, n)
			}
			warnings = append(warnings, fmt.Sprintf("%s: %v; its hooks are skipped", where, err))
			continue
		}
		for _, g := range byEvent[name] {
			for _, e := range g.Hooks {
				h, warn, err := newHook(file, ev, g.Matcher, e)
				switch {
				case err != nil:
					errs = append(errs, err)
				case warn != "":
					warnings = append(warnings, warn)
				default:
					out = append(out, h)
				}
			}
		}
	}
	return out, warnings, errors.Join(errs...)
}

func newHook(file string, ev Event, matcher string, e entry) (Hook, string, error) {
	if e.Type != "" && e.Type != "command" {
		return Hook{}, fmt.Sprintf("%s: %s hook of type %q skipped: aidex runs hooks of type \"command\" only", file, ev, e.Type), nil
	}
	if e.Command == "" {
		return Hook{}, "", fmt.Errorf("hooks: %s: a %s hook has no \"command\"; give the shell command to run", file, ev)
	}
	h := Hook{Event: ev, Matcher: matcher, Command: e.Command, Timeout: DefaultTimeout, Source: file,
		Unsandboxed: e.Sandbox != nil && !*e.Sandbox}
	if e.Timeout != nil {
		if *e.Timeout <= 0 {
			return Hook{}, "", fmt.Errorf("hooks: %s: %s hook %q: timeout must be a positive number of seconds, not %v", file, ev, e.Command, *e.Timeout)
		}
		h.Timeout = time.Duration(*e.Timeout * float64(time.Second))
	}
	if err := h.compile(); err != nil {
		return Hook{}, "", fmt.Errorf("hooks: %s: %s: %w", file, ev, err)
	}
	return h, "", nil
}
