package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/zelvior/aidex/internal/trust"
)

// LoadOptions are the inputs of Load.
type LoadOptions struct {
	// Env looks up an environment variable ("" when unset), e.g. os.Getenv. Required: tests
	// pass a map lookup so they never read the real home directory.
	Getenv func(string) string
	// Workspace is the absolute workspace folder; its .aidex/config.toml is the project file,
	// and it is Config.Workspace unless a file, AIDEX_WORKSPACE or Flags["workspace"] sets
	// another. Relative paths from the environment and flags resolve against it.
	// "" loads no project file.
	Workspace string
	// Flags are command-line values by key ("model", "max_tool_turns", "permissions.allow",
	// "providers.groq.base_url"), typed like `aidex config set`; pass absolute paths.
	// Highest precedence.
	Flags map[string]string
	// KnownProviders are the catalog's provider names, to tell a catalog provider overridden
	// by [providers.NAME] from a new one.
	KnownProviders []string
	// WireFormats are the wire formats the type of a [providers.NAME] table may name
	// (wire.ConfigFormats(): config sits below the table of them); nil takes any type here,
	// leaving it to the catalog to refuse.
	WireFormats []WireFormat
	// Paths overrides ResolvePaths(Env) when non-nil.
	Paths *Paths
	// NoLegacyImport skips the one-time import of the Python AIdex's config.json.
	NoLegacyImport bool
	// Approved reports whether a trusted project's item of content (a
	// setting an untrusted folder may not set, an allow rule, an MCP
	// server) is approved; only approved items apply (see
	// Config.ContentItems). nil reads the approvals recorded in the state
	// directory (trust.Store).
	Approved func(trust.Item) bool
}

// Warning is a non-fatal problem: a setting of an untrusted project file that was ignored, a
// legacy import note, a risky provider choice.
type Warning struct {
	File    string // config file, SourceEnv or SourceFlag; "" when not about a file
	Line    int    // 1-based; 0 when unknown
	Key     string // dotted key, when about one
	Message string
}

// String gives "FILE:LINE: MESSAGE".
func (w Warning) String() string {
	switch {
	case w.File == "":
		return w.Message
	case w.Line > 0:
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message)
	default:
		return w.File + ": " + w.Message
	}
}

// Load merges defaults < global file < project file < AIDEX_* environment < Flags.
//
// Scalar keys and lists override earlier values; permission rules accumulate with their
// sources. Settings of an untrusted project file that could redirect keys, run commands or
// widen permissions are ignored, each with a Warning (see Paths.Trust). When the global file
// is missing and the Python AIdex's config.json exists, it is converted once into the
// global file first (see ImportLegacy) unless NoLegacyImport is set; else
// iptic-memex's config.ini or ayder-cli's config.toml is (see
// ImportForeign).
//
// Errors: opts.Getenv nil; an unresolvable home directory; an unreadable file; every syntax,
// unknown-key, type and value problem in files, environment and flags, as *FileError values
// joined with errors.Join ("FILE:LINE: MESSAGE").
func Load(opts LoadOptions) (*Config, []Warning, error) {
	if opts.Getenv == nil {
		return nil, nil, errors.New("config: LoadOptions.Getenv is nil; pass os.Getenv or a lookup function")
	}
	paths, err := loadPaths(opts)
	if err != nil {
		return nil, nil, err
	}
	l := &loader{opts: opts, paths: paths, cfg: Defaults(), ss: specsFor(opts.WireFormats), global: map[string]bool{}}
	l.cfg.Paths = paths
	l.cfg.Workspace = opts.Workspace
	if !opts.NoLegacyImport {
		l.importLegacy()
	}
	if err := l.loadFiles(); err != nil {
		return nil, l.warnings, err
	}
	var errs []error
	errs = append(errs, l.applyEnv()...)
	errs = append(errs, l.applyFlags()...)
	errs = append(errs, l.checkProviders()...)
	if len(errs) > 0 {
		return nil, l.warnings, errors.Join(errs...)
	}
	l.warnUntrustedProvider()
	return l.cfg, l.warnings, nil
}

func loadPaths(opts LoadOptions) (Paths, error) {
	if opts.Paths != nil {
		return *opts.Paths, nil
	}
	return ResolvePaths(opts.Getenv)
}

type loader struct {
	opts     LoadOptions
	paths    Paths
	cfg      *Config
	ss       []keySpec
	warnings []Warning
	global   map[string]bool // providers named in the global file
	project  *fileDoc
	// trustedProject is set while a trusted project file applies: its
	// settings that an untrusted one may not set count only when approved.
	trustedProject bool
	approvals      *trust.Approvals // the state dir's, when opts.Approved is nil
}

func (l *loader) importLegacy() {
	p := l.paths
	if _, err := os.Stat(p.LegacyFile); errors.Is(err, fs.ErrNotExist) {
		p.LegacyFile = NexusLegacyFile(p)
	}
	if _, err := os.Stat(p.LegacyFile); errors.Is(err, fs.ErrNotExist) {
		l.importForeign()
		return
	}
	imported, ws, err := importLegacy(p, l.ss, l.opts.KnownProviders)
	l.warnings = append(l.warnings, ws...)
	if err != nil {
		l.warnings = append(l.warnings, Warning{File: p.LegacyFile, Message: fmt.Sprintf("not imported: %v", err)})
	} else if imported {
		l.warnings = append(l.warnings, Warning{File: p.LegacyFile, Message: "imported into " + p.ConfigFile + " (the JSON file is no longer read)"})
	}
}

// importForeign imports iptic-memex's or else ayder-cli's settings once
// (see ImportForeign), when no AIdex or Nexus config.json exists.
func (l *loader) importForeign() {
	for _, file := range []string{IpticFile(l.paths), AyderFile(l.paths)} {
		if _, err := os.Stat(file); err != nil {
			continue
		}
		imported, notice, err := importForeign(l.paths, file, l.ss, l.opts.KnownProviders)
		if err != nil {
			l.warnings = append(l.warnings, Warning{File: file, Message: fmt.Sprintf("not imported: %v", err)})
		} else if imported {
			l.warnings = append(l.warnings, notice)
		}
		return
	}
}

// NexusLegacyFile is the config file of the old nexus-agent folder, the
// name AIdex had before: nexus-agent/config.json beside the Python
// AIdex's config folder (~/.config/nexus-agent/config.json on Linux).
// Load imports it once, like Paths.LegacyFile, when neither config.toml
// nor the AIdex config.json exists.
func NexusLegacyFile(p Paths) string {
	return filepath.Join(filepath.Dir(filepath.Dir(p.LegacyFile)), "nexus-agent", "config.json")
}

func (l *loader) loadFiles() error {
	var errs []error
	global, err := readDoc(l.paths.ConfigFile, l.ss)
	if err != nil {
		errs = append(errs, err)
	} else if global != nil {
		for name := range global.providers {
			l.global[name] = true
		}
		l.applyDoc(global, l.paths.ConfigDir, nil)
		l.applyPrices(global, nil)
		l.applyMCP(global, l.paths.ConfigDir, true)
	}
	if l.opts.Workspace != "" {
		l.cfg.ProjectFile = ProjectConfigFile(l.opts.Workspace)
		if err := l.loadProject(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (l *loader) loadProject() error {
	trusted, err := l.paths.IsTrusted(l.opts.Workspace)
	if err != nil {
		// Fail closed but keep aidex usable: the project file loads as untrusted.
		l.warnings = append(l.warnings, Warning{File: l.paths.TrustFile, Message: fmt.Sprintf(
			"%v; treating %s as untrusted", err, l.opts.Workspace)})
		trusted = false
	}
	l.cfg.ProjectTrusted = trusted
	if err := l.loadMCPJSON(); err != nil {
		return err
	}
	doc, err := readDoc(l.cfg.ProjectFile, l.ss)
	if err != nil || doc == nil {
		return err
	}
	l.project = doc
	own := map[string]bool{}
	for name := range doc.providers {
		if !slices.Contains(l.opts.KnownProviders, name) && !l.global[name] {
			own[name] = true
		}
	}
	l.trustedProject = trusted
	defer func() { l.trustedProject = false }()
	l.applyDoc(doc, l.opts.Workspace, own)
	l.applyPrices(doc, own)
	l.applyMCP(doc, l.opts.Workspace, trusted)
	return nil
}

// readDoc reads and decodes a config file, checking values against ss; a missing file
// gives (nil, nil).
func readDoc(file string, ss []keySpec) (*fileDoc, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", file, err)
	}
	return parseFileWith(file, data, ss)
}

// applyDoc applies a file's settings. own is nil for the global file; for a project file it
// holds the providers the file defines itself. An untrusted project file's refused settings
// become warnings; a trusted one's apply only when approved (trust items, see content.go).
func (l *loader) applyDoc(doc *fileDoc, base string, own map[string]bool) {
	l.warnings = append(l.warnings, doc.notices...)
	names := make([]string, 0, len(doc.providers))
	for name := range doc.providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := l.cfg.Providers[name]; !ok {
			l.cfg.Providers[name] = ProviderConfig{}
			l.cfg.Sources["providers."+quoteKey(name)] = fmt.Sprintf("%s:%d", doc.file, doc.providers[name])
		}
	}
	for _, s := range doc.settings {
		if own != nil && l.trustedProject {
			if s.spec.name == "permissions.allow" {
				s = l.approvedRules(s)
			} else if projectRefusal(s, own) != "" && !l.approved(l.settingItem(s)) {
				continue
			}
			l.apply(s, base)
			continue
		}
		if own != nil && s.spec.name == "permissions.allow" {
			s = l.userApproved(s)
		}
		if own != nil {
			if reason := projectRefusal(s, own); reason != "" {
				l.warnings = append(l.warnings, Warning{File: s.file, Line: s.line, Key: s.key(), Message: fmt.Sprintf(
					"ignored %s: %s; this folder is not trusted (run `aidex trust` in %s to allow it)", s.key(), reason, l.opts.Workspace)})
				continue
			}
		}
		l.apply(s, base)
	}
}

// userApproved splits an untrusted project file's allow rules: those the
// user approved for this folder ("always allow in this project", recorded
// by Paths.ApproveRule) are applied here, and the setting returned holds
// the rest, which refusal then turns into warnings (an empty list is
// applied as nothing).
func (l *loader) userApproved(s setting) setting {
	rules, _ := s.value.([]string)
	approved, err := l.paths.ApprovedRules(l.opts.Workspace)
	if err != nil || len(approved) == 0 || len(rules) == 0 {
		return s
	}
	var ok, rest []string
	for _, r := range rules {
		if slices.Contains(approved, r) {
			ok = append(ok, r)
		} else {
			rest = append(rest, r)
		}
	}
	if len(ok) > 0 {
		keep := s
		keep.value = ok
		l.apply(keep, l.opts.Workspace)
	}
	s.value = rest
	if len(rest) == 0 {
		s.value = []string(nil)
	}
	return s
}

func (l *loader) apply(s setting, base string) {
	v := s.value
	if s.spec.isPath() {
		switch x := v.(type) {
		case string:
			v = expandPath(x, l.paths.Home, base)
		case []string:
			out := make([]string, len(x))
			for i, p := range x {
				out[i] = expandPath(p, l.paths.Home, base)
			}
			v = out
		}
	}
	l.cfg.assign(s.spec, s.provider, v, s.source())
}

// applyEnv applies AIDEX_<KEY> variables for every key outside [providers].
func (l *loader) applyEnv() []error {
	var errs []error
	for _, s := range l.ss {
		name := s.envName()
		if name == "" {
			continue
		}
		raw := l.opts.Getenv(name)
		if raw == "" {
			continue
		}
		if err := l.applyString(s, "", raw, SourceEnv); err != nil {
			errs = append(errs, &FileError{File: "env " + name, Key: s.name, Message: fmt.Sprintf("%s %v", s.name, err)})
		}
	}
	return errs
}

// applyFlags applies opts.Flags in key order.
func (l *loader) applyFlags() []error {
	keys := make([]string, 0, len(l.opts.Flags))
	for k := range l.opts.Flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	for _, k := range keys {
		s, provider, err := resolveKey(l.ss, k)
		if err == nil {
			err = l.applyString(s, provider, l.opts.Flags[k], SourceFlag)
			if err != nil {
				err = fmt.Errorf("%s %w", k, err)
			}
		}
		if err != nil {
			errs = append(errs, &FileError{File: "flag " + k, Key: k, Message: err.Error()})
		}
	}
	return errs
}

func (l *loader) applyString(s keySpec, provider, raw, source string) error {
	v, err := fromString(s.kind, raw)
	if err == nil {
		err = validate(s, v)
	}
	if err != nil {
		return err
	}
	if s.provider {
		if _, ok := l.cfg.Providers[provider]; !ok {
			l.cfg.Providers[provider] = ProviderConfig{}
			l.cfg.Sources["providers."+quoteKey(provider)] = source
		}
	}
	l.apply(setting{spec: s, provider: provider, value: v, file: source}, l.opts.Workspace)
	return nil
}

// checkProviders requires a type, and a base_url unless the type is ollama, for providers
// that are not in the catalog.
func (l *loader) checkProviders() []error {
	var errs []error
	names := make([]string, 0, len(l.cfg.Providers))
	for name := range l.cfg.Providers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if slices.Contains(l.opts.KnownProviders, name) {
			continue
		}
		pc := l.cfg.Providers[name]
		var missing []string
		if pc.Type == "" {
			missing = append(missing, "type")
		}
		if pc.BaseURL == "" && !slices.ContainsFunc(l.opts.WireFormats, func(f WireFormat) bool { return f.Local && f.Type == pc.Type }) {
			missing = append(missing, "base_url")
		}
		if len(missing) > 0 {
			errs = append(errs, sourceError(l.cfg.Sources["providers."+quoteKey(name)], "providers."+quoteKey(name),
				fmt.Sprintf("provider %q is not in the catalog, so it needs %s (type is one of %s)",
					name, strings.Join(missing, " and "), strings.Join(typeNames(l.opts.WireFormats), ", "))))
		}
	}
	return errs
}

// warnUntrustedProvider warns when the chosen provider is defined by an untrusted project
// file: requests (with the conversation and workspace files) go to the host it names.
func (l *loader) warnUntrustedProvider() {
	if l.project == nil || l.cfg.ProjectTrusted {
		return
	}
	for _, key := range []string{"provider", "image_provider"} {
		name := l.cfg.Provider
		if key == "image_provider" {
			name = l.cfg.ImageProvider
		}
		line, ok := l.project.providers[name]
		if !ok || slices.Contains(l.opts.KnownProviders, name) || l.global[name] {
			continue
		}
		l.warnings = append(l.warnings, Warning{File: l.project.file, Line: line, Key: key, Message: fmt.Sprintf(
			"%s %q is defined by this untrusted project file; requests go to %s", key, name, l.cfg.Providers[name].BaseURL)})
	}
}

// sourceError makes a *FileError from a "PATH:LINE" source.
func sourceError(source, key, msg string) *FileError {
	file, line := splitSource(source)
	return &FileError{File: file, Line: line, Key: key, Message: msg}
}

func splitSource(source string) (string, int) {
	i := strings.LastIndexByte(source, ':')
	if i < 0 {
		return source, 0
	}
	var line int
	if _, err := fmt.Sscanf(source[i+1:], "%d", &line); err != nil || line <= 0 {
		return source, 0
	}
	return source[:i], line
}

// resolveKey parses a dotted key as typed by a user ("providers.groq.api_key",
// `providers."my.host".base_url`) and finds its spec. Unknown keys give an error with a
// suggestion.
func resolveKey(ss []keySpec, key string) (keySpec, string, error) {
	path, err := parseDottedKey(key)
	if err != nil {
		return keySpec{}, "", err
	}
	s, provider, ok := lookupSpec(ss, path)
	if !ok {
		if isTablePath(path) {
			return keySpec{}, "", fmt.Errorf("%q is a table; name one of its keys (%s.KEY)", key, key)
		}
		return keySpec{}, "", errors.New(unknownKeyMessage(ss, path))
	}
	return s, provider, nil
}

// parseDottedKey splits a TOML dotted key into its parts.
func parseDottedKey(key string) ([]string, error) {
	bad := fmt.Errorf("invalid key %q: write it as name.name, quoting parts that contain dots in \"\"", key)
	var p unstable.Parser
	p.Reset([]byte(key + " = 0\n"))
	if !p.NextExpression() {
		return nil, bad
	}
	e := p.Expression()
	if e.Kind != unstable.KeyValue || string(e.Value().Data) != "0" {
		return nil, bad
	}
	parts := keyParts(e.Key())
	if p.NextExpression() || p.Error() != nil || len(parts) == 0 {
		return nil, bad
	}
	return parts, nil
}
