package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zelvior/aidex/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// refusal returns why an untrusted project file may not apply s, or "" when it may. own holds
// the providers the file defines itself (not in the catalog, not in the global file).
func refusal(s setting, own map[string]bool) string {
	switch s.spec.name {
	case "ollama_base_url", "custom_base_url", "image_base_url":
		return "a project file may not set a base URL"
	case "providers.*.base_url":
		if !own[s.provider] {
			return fmt.Sprintf("a project file may not redirect provider %q, which it does not define", s.provider)
		}
	case "providers.*.api_key":
		if !own[s.provider] {
			return fmt.Sprintf("a project file may not set the API key of provider %q, which it does not define", s.provider)
		}
	case "cloudflare_account_id":
		return "a project file may not choose the Cloudflare account the image key is used with"
	case "providers.*.api_key_env", "image_api_key":
		return "a project file may not choose which API key is sent"
	case "command_env_allow":
		if names, _ := s.value.([]string); len(names) > 0 {
			return "a project file may not pass credentials to commands"
		}
	case "verify_command", "system_prompt_file":
		return "a project file may not set commands or prompt files"
	case "permissions.allow":
		if rules, _ := s.value.([]string); len(rules) == 0 {
			return ""
		}
		return "a project file may not add allow rules (only the ones you approved with \"always allow\" in this folder)"
	case "allowed_dirs", "workspace":
		return "a project file may not widen the directories aidex can reach"
	case "permission_mode":
		if m := s.value.(string); m != "plan" && m != "ask" {
			return fmt.Sprintf("a project file may only set permission_mode plan or ask, not %q", m)
		}
	case "confine", "safe_mode":
		if !s.value.(bool) {
			return fmt.Sprintf("a project file may not turn %s off", s.spec.name)
		}
	case "web_allow_shell_tools", "web_fetch_allow_private":
		if s.value.(bool) {
			return fmt.Sprintf("a project file may not turn %s on", s.spec.name)
		}
	case "tools.profile":
		if s.value.(string) == "full" {
			return `a project file may not choose the "full" tool profile`
		}
	case "tools.enabled":
		return "a project file may not enable tools"
	case "sandbox.mode", "sandbox.writable", "sandbox.network", "sandbox.auto_allow", "sandbox.verify_unsandboxed", "agent.writes_policy":
		return looseningRefusal(s)
	}
	return ""
}

// looseningRefusal is refusal for the [sandbox] keys and
// agent.writes_policy: a project file may tighten the sandbox and agent
// mode's writes, never loosen them.
func looseningRefusal(s setting) string {
	switch s.spec.name {
	case "agent.writes_policy":
		if s.value.(string) == "allow" {
			return "a project file may not let agent mode write files without asking (agent.writes_policy = \"allow\")"
		}
	case "sandbox.mode":
		if m := s.value.(string); m != "workspace-write" && m != "read-only" {
			return fmt.Sprintf("a project file may only set sandbox.mode workspace-write or read-only, not %q", m)
		}
	case "sandbox.writable":
		if dirs, _ := s.value.([]string); len(dirs) > 0 {
			return "a project file may not widen the folders sandboxed commands can write"
		}
	default: // network, auto_allow, verify_unsandboxed
		if s.value.(bool) {
			return fmt.Sprintf("a project file may not turn %s on", s.spec.name)
		}
	}
	return ""
}

// Trust records dir (made absolute, symlinks resolved) as a trusted folder in p.TrustFile,
// so its project file may set every key. Trusting a folder trusts its subfolders.
// Errors: dir does not exist; the trust file cannot be read, parsed or written.
func (p Paths) Trust(dir string) error {
	abs, err := resolveDir(dir, true)
	if err != nil {
		return err
	}
	list, err := p.trusted()
	if err != nil {
		return err
	}
	if slices.Contains(list, abs) {
		return nil
	}
	return p.writeTrusted(append(list, abs))
}

// Untrust removes dir from the trusted folders; a folder that was not trusted is no error.
// Trust of a parent folder is not removed.
func (p Paths) Untrust(dir string) error {
	abs, err := resolveDir(dir, false)
	if err != nil {
		return err
	}
	list, err := p.trusted()
	if err != nil {
		return err
	}
	out := slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == abs })
	if len(out) == len(list) {
		return nil
	}
	return p.writeTrusted(out)
}

// IsTrusted reports whether dir or one of its parents is a trusted folder.
// Errors: the trust file exists but cannot be read or parsed.
func (p Paths) IsTrusted(dir string) (bool, error) {
	abs, err := resolveDir(dir, false)
	if err != nil {
		return false, err
	}
	list, err := p.trusted()
	if err != nil {
		return false, err
	}
	for _, t := range list {
		if within(abs, t) {
			return true, nil
		}
	}
	return false, nil
}

// TrustedFolders returns the trusted folders, in the order they were trusted.
func (p Paths) TrustedFolders() ([]string, error) { return p.trusted() }

func (p Paths) trusted() ([]string, error) {
	if p.TrustFile == "" {
		return nil, errors.New("config: no trust file path (Paths not resolved)")
	}
	data, err := os.ReadFile(p.TrustFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: read trusted folders: %w", err)
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("config: %s is not a JSON array of folder paths (fix or delete it): %w", p.TrustFile, err)
	}
	return slices.DeleteFunc(list, func(s string) bool { return !filepath.IsAbs(s) }), nil
}

func (p Paths) writeTrusted(list []string) error {
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return fmt.Errorf("config: encode trusted folders: %w", err)
	}
	return writeFileAtomic(p.TrustFile, append(data, '\n'))
}

// resolveDir makes dir absolute and resolves symlinks. When the folder does not exist,
// mustExist makes that an error; otherwise the cleaned absolute path is used.
func resolveDir(dir string, mustExist bool) (string, error) {
	if dir == "" {
		return "", errors.New("config: empty folder path")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("config: folder %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if mustExist {
			return "", fmt.Errorf("config: folder %s: %w", dir, err)
		}
		return abs, nil
	}
	return real, nil
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// writeFileAtomic writes data to file (mode 0600) through a temporary file and a rename,
// creating missing parent directories with mode 0700.
func writeFileAtomic(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("config: create %s: %w", filepath.Dir(file), err)
	}
	if err := atomicfile.WriteFile(file, data, 0o600); err != nil {
		return fmt.Errorf("config: write %s: %w", file, err)
	}
	return nil
}
