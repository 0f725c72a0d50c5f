package plugin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Fetched is what [Store.Install] installed: the registry entry, the
// plugin as loaded from its copy, and warnings (the manifest's, links
// left out of the copy).
type Fetched struct {
	Installed
	Plugin   Plugin
	Warnings []string
}

// Install fetches a plugin and records it, replacing an installed copy
// of the same id (an update). src is a folder or a git URL; with
// marketplace set, src is the name of a plugin that known marketplace
// lists, fetched from the entry's source. A folder is copied and a URL
// cloned (see clone) into the store; the copy, not the source, is what
// aidex loads. Errors: the source cannot be fetched, is not a valid
// plugin, or the marketplace or entry is unknown.
func (s Store) Install(ctx context.Context, src, marketplace string) (Fetched, error) {
	if s.dir == "" {
		return Fetched{}, fmt.Errorf("plugin: no data directory to keep plugins in")
	}
	stage, err := s.stage()
	if err != nil {
		return Fetched{}, err
	}
	defer os.RemoveAll(stage)
	var f Fetched
	name := ""
	if marketplace != "" {
		m, e, err := s.entry(marketplace, src)
		if err != nil {
			return f, err
		}
		f.Marketplace, name, f.Description = m.Name, e.Name, e.Description
		if src, err = s.entrySource(m, e); err != nil {
			return f, err
		}
		f.Source = e.Name + "@" + m.Name + " (" + e.Source.String() + ")"
	} else {
		f.Marketplace, f.Source = LocalMarketplace, src
		bare, _, _ := strings.Cut(src, "#") // URL#REF
		name = strings.TrimSuffix(filepath.Base(strings.TrimRight(bare, "/")), ".git")
		if !IsGitURL(src) {
			if abs, err := filepath.Abs(src); err == nil {
				src, f.Source = abs, abs
			}
		}
	}
	from, commit, err := fetchInto(ctx, src, filepath.Join(stage, "src"))
	if err != nil {
		return f, err
	}
	f.Commit = commit
	copyDir := filepath.Join(stage, "plugin")
	warns, err := copyTree(from, copyDir)
	f.Warnings = warns
	if err != nil {
		return f, err
	}
	p, err := Load(copyDir, name)
	if err != nil {
		return f, fmt.Errorf("%w (in %s)", err, f.Source)
	}
	if marketplace != "" && p.Name != name {
		f.Warnings = append(f.Warnings, fmt.Sprintf("%s: the plugin calls itself %q; installed as %q, its marketplace's name for it", f.Source, p.Name, name))
		p.Name = name
	}
	f.Name, f.Version = p.Name, p.Manifest.Version
	if f.Description == "" {
		f.Description = p.Manifest.Description
	}
	return s.place(f, copyDir)
}

// place moves the staged copy to cache/MARKETPLACE/NAME, replacing an
// older one, records it and loads it from there.
func (s Store) place(f Fetched, copyDir string) (Fetched, error) {
	final := filepath.Join(s.dir, "cache", f.Marketplace, f.Name)
	f.Dir, f.InstalledAt = final, time.Now().UTC().Truncate(time.Second)
	err := s.update(func(r *registry) error {
		if err := replaceDir(copyDir, final); err != nil {
			return err
		}
		r.Plugins = slices.DeleteFunc(r.Plugins, func(x Installed) bool { return x.ID() == f.ID() })
		r.Plugins = append(r.Plugins, f.Installed)
		return nil
	})
	if err != nil {
		return f, err
	}
	p, err := Load(final, f.Name)
	p.Name = f.Name
	f.Plugin = p
	f.Warnings = append(f.Warnings, p.Warnings...)
	return f, err
}

// replaceDir puts from at to, removing what was there.
func replaceDir(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		return fmt.Errorf("plugin: %w", err)
	}
	old := to + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(to, old); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("plugin: replace %s: %w", to, err)
	}
	if err := os.Rename(from, to); err != nil {
		_ = os.Rename(old, to)
		return fmt.Errorf("plugin: install into %s: %w", to, err)
	}
	_ = os.RemoveAll(old)
	return nil
}

// stage makes a fresh folder below the store for a fetch.
func (s Store) stage() (string, error) {
	tmp := filepath.Join(s.dir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return "", fmt.Errorf("plugin: %w", err)
	}
	d, err := os.MkdirTemp(tmp, "fetch-")
	if err != nil {
		return "", fmt.Errorf("plugin: %w", err)
	}
	return d, nil
}

// fetchInto gives the folder to copy from: src itself for a folder, or
// a clone of the URL src (URL#REF picks a branch or tag) in dir.
func fetchInto(ctx context.Context, src, dir string) (string, string, error) {
	if !IsGitURL(src) {
		st, err := os.Stat(src)
		if err != nil || !st.IsDir() {
			return "", "", fmt.Errorf("plugin: %s is neither a folder nor a git URL (https://, ssh://, git@HOST:PATH, file://)", src)
		}
		return src, "", nil
	}
	url, ref, _ := strings.Cut(src, "#")
	commit, err := clone(ctx, url, ref, dir)
	return dir, commit, err
}

// entry finds plugin name in the known marketplace called market.
func (s Store) entry(market, name string) (Marketplace, Entry, error) {
	known, err := s.Marketplaces()
	if err != nil {
		return Marketplace{}, Entry{}, err
	}
	i := slices.IndexFunc(known, func(k KnownMarketplace) bool { return k.Name == market })
	if i < 0 {
		return Marketplace{}, Entry{}, fmt.Errorf("plugin: no marketplace %q: add it with `aidex plugin marketplace add PATH|GIT-URL`", market)
	}
	m, _, err := LoadMarketplace(known[i].Dir)
	if err != nil {
		return m, Entry{}, err
	}
	e, ok := m.Find(name)
	if !ok {
		var names []string
		for _, p := range m.Plugins {
			names = append(names, p.Name)
		}
		return m, e, fmt.Errorf("plugin: marketplace %q lists no plugin %q (it lists %s)", market, name, strings.Join(names, ", "))
	}
	return m, e, nil
}

// entrySource is where an entry's plugin is fetched from: its git URL,
// or its folder inside the marketplace's copy (which must not leave it).
func (s Store) entrySource(m Marketplace, e Entry) (string, error) {
	if e.Source.URL != "" {
		if e.Source.Ref != "" {
			return e.Source.URL + "#" + e.Source.Ref, nil
		}
		return e.Source.URL, nil
	}
	dir := filepath.Join(m.Root, filepath.FromSlash(e.Source.Path))
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("plugin: marketplace %q: plugin %q: %w", m.Name, e.Name, err)
	}
	root, _ := filepath.EvalSymlinks(m.Root)
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("plugin: marketplace %q: plugin %q's source %s leaves the marketplace", m.Name, e.Name, e.Source.Path)
	}
	return real, nil
}

// AddMarketplace fetches the marketplace at src (a folder or git URL)
// into the store and records it under its own name, replacing an older
// copy (an update). Errors: it cannot be fetched, or has no valid
// marketplace.json.
func (s Store) AddMarketplace(ctx context.Context, src string) (KnownMarketplace, Marketplace, []string, error) {
	var k KnownMarketplace
	stage, err := s.stage()
	if err != nil {
		return k, Marketplace{}, nil, err
	}
	defer os.RemoveAll(stage)
	k.Source = src
	if !IsGitURL(src) {
		if abs, err := filepath.Abs(src); err == nil {
			src, k.Source = abs, abs
		}
	}
	from, commit, err := fetchInto(ctx, src, filepath.Join(stage, "src"))
	if err != nil {
		return k, Marketplace{}, nil, err
	}
	copyDir := filepath.Join(stage, "copy")
	warns, err := copyTree(from, copyDir)
	if err != nil {
		return k, Marketplace{}, warns, err
	}
	m, w, err := LoadMarketplace(copyDir)
	warns = append(warns, w...)
	if err != nil {
		return k, m, warns, err
	}
	if m.Name == LocalMarketplace {
		return k, m, warns, fmt.Errorf("plugin: a marketplace may not be called %q (aidex's name for plugins added from a folder or URL)", LocalMarketplace)
	}
	k.Name, k.Commit, k.Dir, k.AddedAt = m.Name, commit, filepath.Join(s.dir, "marketplaces", m.Name), time.Now().UTC().Truncate(time.Second)
	err = s.update(func(r *registry) error {
		if err := replaceDir(copyDir, k.Dir); err != nil {
			return err
		}
		r.Marketplaces = slices.DeleteFunc(r.Marketplaces, func(x KnownMarketplace) bool { return x.Name == k.Name })
		r.Marketplaces = append(r.Marketplaces, k)
		return nil
	})
	m.Root = k.Dir
	return k, m, warns, err
}

// RemoveMarketplace forgets the marketplace called name and deletes its
// copy; the plugins installed from it stay (remove them with Remove).
// Errors: no such marketplace; the registry cannot be written.
func (s Store) RemoveMarketplace(name string) (KnownMarketplace, error) {
	var k KnownMarketplace
	err := s.update(func(r *registry) error {
		i := slices.IndexFunc(r.Marketplaces, func(x KnownMarketplace) bool { return x.Name == name })
		if i < 0 {
			return fmt.Errorf("plugin: no marketplace %q: `aidex plugin marketplace list` shows them", name)
		}
		k = r.Marketplaces[i]
		r.Marketplaces = slices.Delete(r.Marketplaces, i, i+1)
		return nil
	})
	if err == nil && s.owns(k.Dir) {
		_ = os.RemoveAll(k.Dir)
	}
	return k, err
}

// Update fetches the installed plugin ref again from where it came from:
// its folder or git URL, or its marketplace's entry (as the marketplace's
// copy lists it now: `marketplace add` refreshes that copy first).
// Errors: as Find's and Install's.
func (s Store) Update(ctx context.Context, ref string) (Fetched, error) {
	p, err := s.Find(ref)
	if err != nil {
		return Fetched{}, err
	}
	if p.Marketplace == LocalMarketplace {
		return s.Install(ctx, p.Source, "")
	}
	return s.Install(ctx, p.Name, p.Marketplace)
}
