package config

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
)

// Paths are aidex's per-user directories and files, resolved from an environment lookup
// (never from the process's real environment unless the caller passes os.Getenv).
//
// On every system an absolute $XDG_CONFIG_HOME, $XDG_DATA_HOME, $XDG_STATE_HOME or
// $XDG_CACHE_HOME wins. Otherwise: Linux and other Unix use ~/.config, ~/.local/share,
// ~/.local/state and ~/.cache; macOS uses ~/Library/Application Support (config, data,
// state) and ~/Library/Caches; Windows uses %APPDATA% (config), %LOCALAPPDATA% (data, state)
// and %LOCALAPPDATA%\cache, like github.com/adrg/xdg and os.UserConfigDir.
type Paths struct {
	Home       string // the user's home directory
	ConfigDir  string // <config home>/aidex
	ConfigFile string // ConfigDir/config.toml: the global config file
	LegacyFile string // the Python AIdex's config.json (ConfigDir/config.json on Linux)
	DataDir    string // <data home>/aidex: sessions database
	StateDir   string // <state home>/aidex: trusted folders, history
	CacheDir   string // <cache home>/aidex: model lists
	TrustFile  string // StateDir/trusted.json: JSON array of trusted absolute folder paths
}

// ProjectConfigFile returns the project config file of a workspace:
// <workspace>/.aidex/config.toml.
func ProjectConfigFile(workspace string) string {
	return filepath.Join(workspace, ".aidex", "config.toml")
}

// ResolvePaths resolves Paths for the running OS from env (a lookup such as os.Getenv,
// returning "" for unset variables). It returns an error when neither the home directory
// (HOME; USERPROFILE on Windows) nor the XDG variables give an absolute directory.
func ResolvePaths(env func(string) string) (Paths, error) {
	return resolvePaths(env, runtime.GOOS)
}

func resolvePaths(env func(string) string, goos string) (Paths, error) {
	home := env("HOME")
	if goos == "windows" {
		home = firstNonEmpty(env("USERPROFILE"), home)
	}
	home = absOrEmpty(home)
	join := func(base string, elem ...string) string {
		if base == "" {
			return ""
		}
		return filepath.Join(append([]string{base}, elem...)...)
	}
	var config, data, state, cache, legacy string
	switch goos {
	case "windows":
		roaming := firstNonEmpty(absOrEmpty(env("APPDATA")), join(home, "AppData", "Roaming"))
		local := firstNonEmpty(absOrEmpty(env("LOCALAPPDATA")), join(home, "AppData", "Local"))
		config, data, state, cache = roaming, local, local, join(local, "cache")
		legacy = join(home, ".config", "aidex", "config.json")
	case "darwin", "ios":
		support := join(home, "Library", "Application Support")
		config, data, state, cache = support, support, support, join(home, "Library", "Caches")
		legacy = join(home, ".config", "aidex", "config.json")
	default:
		config, data, state, cache = join(home, ".config"), join(home, ".local", "share"),
			join(home, ".local", "state"), join(home, ".cache")
	}
	p := Paths{
		Home:      home,
		ConfigDir: join(xdgDir(env, "XDG_CONFIG_HOME", config), "aidex"),
		DataDir:   join(xdgDir(env, "XDG_DATA_HOME", data), "aidex"),
		StateDir:  join(xdgDir(env, "XDG_STATE_HOME", state), "aidex"),
		CacheDir:  join(xdgDir(env, "XDG_CACHE_HOME", cache), "aidex"),
	}
	if p.ConfigDir == "" || p.DataDir == "" || p.StateDir == "" || p.CacheDir == "" {
		return Paths{}, errors.New("config: cannot find the home directory: set HOME (or XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME and XDG_CACHE_HOME) to an absolute path")
	}
	p.ConfigFile = filepath.Join(p.ConfigDir, "config.toml")
	p.LegacyFile = firstNonEmpty(legacy, filepath.Join(p.ConfigDir, "config.json"))
	p.TrustFile = filepath.Join(p.StateDir, "trusted.json")
	return p, nil
}

// xdgDir returns the XDG variable's value when it is absolute (the XDG spec says relative
// values are invalid and must be ignored), else def.
func xdgDir(env func(string) string, name, def string) string {
	if v := env(name); v != "" && filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return def
}

func absOrEmpty(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return ""
	}
	return filepath.Clean(p)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// expandPath expands a leading ~ to home and makes a relative path absolute against base.
func expandPath(p, home, base string) string {
	if p == "" {
		return ""
	}
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`)) {
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) && base != "" {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}
