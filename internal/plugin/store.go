package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/atomicfile"
	"github.com/zelvior/aidex/internal/filelock"
)

// LocalMarketplace is the marketplace name of a plugin added from a
// folder or a git URL rather than from a marketplace: its id is
// "NAME@local".
const LocalMarketplace = "local"

// Store is the installed plugins and known marketplaces of aidex's data
// directory: DATA/plugins/registry.json (what is installed, from where),
// DATA/plugins/cache/MARKETPLACE/NAME (each plugin's copy) and
// DATA/plugins/marketplaces/NAME (each marketplace's copy). The zero
// Store has no folder: it lists nothing and installs nothing.
type Store struct{ dir string }

// OpenStore returns the store below dataDir (nothing is read yet).
func OpenStore(dataDir string) Store {
	if dataDir == "" {
		return Store{}
	}
	return Store{dir: filepath.Join(dataDir, "plugins")}
}

// Dir is the store's folder ("" for the zero Store).
func (s Store) Dir() string { return s.dir }

// Installed is one installed plugin: Name, the Marketplace it came from
// (LocalMarketplace for a folder or URL), its Version (the manifest's),
// Source (the folder, URL or marketplace entry it was fetched from),
// Commit (the git commit, when cloned), Dir (its copy) and when it was
// installed or last updated.
type Installed struct {
	Name        string    `json:"name"`
	Marketplace string    `json:"marketplace"`
	Version     string    `json:"version,omitempty"`
	Description string    `json:"description,omitempty"`
	Source      string    `json:"source"`
	Commit      string    `json:"commit,omitempty"`
	Dir         string    `json:"dir"`
	InstalledAt time.Time `json:"installed_at"`
}

// ID is "NAME@MARKETPLACE", the key of enabledPlugins.
func (i Installed) ID() string { return i.Name + "@" + i.Marketplace }

// KnownMarketplace is one added marketplace: Name, Source (folder or git
// URL), Commit (when cloned), Dir (its copy) and when it was added.
type KnownMarketplace struct {
	Name    string    `json:"name"`
	Source  string    `json:"source"`
	Commit  string    `json:"commit,omitempty"`
	Dir     string    `json:"dir"`
	AddedAt time.Time `json:"added_at"`
}

type registry struct {
	Version      int                `json:"version"`
	Plugins      []Installed        `json:"plugins"`
	Marketplaces []KnownMarketplace `json:"marketplaces"`
}

func (s Store) file() string { return filepath.Join(s.dir, "registry.json") }

// read reads the registry (empty when missing). Errors name the file.
func (s Store) read() (registry, error) {
	var r registry
	if s.dir == "" {
		return r, nil
	}
	data, err := os.ReadFile(s.file())
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("plugin: read %s: %w", s.file(), err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return registry{}, fmt.Errorf("plugin: %s is not aidex's plugin registry (%v): remove it and add your plugins again", s.file(), err)
	}
	return r, nil
}

// update changes the registry under its lock.
func (s Store) update(change func(*registry) error) error {
	if s.dir == "" {
		return errors.New("plugin: no data directory to keep plugins in")
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("plugin: %w", err)
	}
	unlock, err := lockWait(filepath.Join(s.dir, "registry.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	r, err := s.read()
	if err != nil {
		return err
	}
	if err := change(&r); err != nil {
		return err
	}
	r.Version = 1
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("plugin: encode %s: %w", s.file(), err)
	}
	if err := atomicfile.WriteFile(s.file(), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("plugin: write %s: %w", s.file(), err)
	}
	return nil
}

// lockWait takes the registry's lock, waiting up to 10 s for another
// aidex.
func lockWait(path string) (func(), error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		unlock, err := filelock.TryLock(path, 0o600)
		if err == nil {
			return unlock, nil
		}
		if !errors.Is(err, filelock.ErrLocked) || time.Now().After(deadline) {
			return nil, fmt.Errorf("plugin: lock %s: %w", path, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// Installed lists the installed plugins, sorted by id. Errors: the
// registry cannot be read.
func (s Store) Installed() ([]Installed, error) {
	r, err := s.read()
	slices.SortFunc(r.Plugins, func(a, b Installed) int { return strings.Compare(a.ID(), b.ID()) })
	return r.Plugins, err
}

// Find returns the installed plugin ref names: "NAME@MARKETPLACE", or a
// NAME only one installed plugin has. Errors: none or several match
// (the message lists them).
func (s Store) Find(ref string) (Installed, error) {
	list, err := s.Installed()
	if err != nil {
		return Installed{}, err
	}
	var hits []Installed
	for _, p := range list {
		if p.ID() == ref || !strings.Contains(ref, "@") && p.Name == ref {
			hits = append(hits, p)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return Installed{}, fmt.Errorf("plugin: no installed plugin %q: `aidex plugin list` shows them", ref)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.ID())
	}
	return Installed{}, fmt.Errorf("plugin: %q is installed from several marketplaces (%s): give NAME@MARKETPLACE", ref, strings.Join(ids, ", "))
}

// Marketplaces lists the known marketplaces, sorted by name.
func (s Store) Marketplaces() ([]KnownMarketplace, error) {
	r, err := s.read()
	slices.SortFunc(r.Marketplaces, func(a, b KnownMarketplace) int { return strings.Compare(a.Name, b.Name) })
	return r.Marketplaces, err
}

// Remove deletes the installed plugin ref names (see Find) and its copy.
// Errors: as Find's; the registry cannot be written.
func (s Store) Remove(ref string) (Installed, error) {
	p, err := s.Find(ref)
	if err != nil {
		return p, err
	}
	err = s.update(func(r *registry) error {
		r.Plugins = slices.DeleteFunc(r.Plugins, func(x Installed) bool { return x.ID() == p.ID() })
		return nil
	})
	if err != nil {
		return p, err
	}
	if s.owns(p.Dir) {
		_ = os.RemoveAll(p.Dir)
	}
	return p, nil
}

// owns reports whether dir is below the store's folder (what Remove may
// delete).
func (s Store) owns(dir string) bool {
	rel, err := filepath.Rel(s.dir, dir)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
