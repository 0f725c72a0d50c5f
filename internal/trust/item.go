// Package trust approves a trusted project's content by its hash.
//
// Trusting a folder (`aidex trust`) is the gate: an untrusted folder's
// settings, servers, hooks and commands' allowed-tools never count. In a
// trusted folder every item of executable or widening content — an MCP
// server, a hook command, a custom command's !`command` lines and
// allowed-tools, a skill's or agent's tool list, an allow rule, a setting
// an untrusted folder may not set — is an [Item] with a [Digest] of what it
// runs or widens, scripts of the workspace it names included. An item
// counts only while its digest is approved in the user's [Store] (aidex's
// state directory, which sandboxed commands cannot see); a new or changed
// item waits for the user's review ([Review]).
//
// Every source of content is one [Producer]; the review and the store do
// not know the kinds apart.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Kind names what an item is, as the review shows it.
type Kind string

// The kinds of content aidex's own producers submit. A new source (a
// plugin) may add its own.
const (
	KindMCPServer Kind = "mcp server"
	KindHook      Kind = "hook"
	KindCommand   Kind = "command"
	KindSkill     Kind = "skill"
	KindAgent     Kind = "agent"
	KindRule      Kind = "allow rule"
	KindSetting   Kind = "setting"
)

// Item is one piece of executable or widening content of a project.
//
// Kind and Name identify it (the same Kind and Name with another Digest
// is a changed item); Source is where it is defined ("FILE:LINE" or
// "FILE"); Detail is what the user approves, in a line or a few (the
// command, URL, tool list); Digest is "sha256:" and 64 hex digits over
// Kind, Name, the content and the workspace files it runs (see [NewItem]).
type Item struct {
	Kind   Kind   `json:"kind"`
	Name   string `json:"name"`
	Source string `json:"source,omitempty"`
	Detail string `json:"detail,omitempty"`
	Digest string `json:"digest"`
}

// Key is the item's identity, Kind and Name: "KIND NAME".
func (it Item) Key() string { return string(it.Kind) + " " + it.Name }

// String gives "KIND NAME (SOURCE)".
func (it Item) String() string {
	if it.Source == "" {
		return it.Key()
	}
	return it.Key() + " (" + it.Source + ")"
}

// Producer is one source of items: the project's config files, its hooks,
// its commands, skills and agents, a plugin.
type Producer interface {
	// Items returns the source's items, in a stable order. Errors: what
	// could not be read (the items that could are still returned).
	Items() ([]Item, error)
}

// ProducerFunc makes a function a Producer.
type ProducerFunc func() ([]Item, error)

// Items calls f.
func (f ProducerFunc) Items() ([]Item, error) { return f() }

// Collect returns the items of every producer, in producer order, and
// their errors joined.
func Collect(ps ...Producer) ([]Item, error) {
	var out []Item
	var errs []error
	for _, p := range ps {
		items, err := p.Items()
		out = append(out, items...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// maxFiles caps the workspace files one item's digest covers; maxFileBytes
// the bytes hashed of one (the size is hashed too, so a longer file still
// changes the digest).
const (
	maxFiles     = 32
	maxFileBytes = 256 << 20
)

// NewItem builds an item whose digest covers kind, name, content (any
// value encoding/json encodes; maps are encoded with sorted keys, so the
// digest does not depend on map order) and every file of files that is a
// regular file inside workspace (its path relative to workspace and its
// bytes). A file that does not exist, or is outside the workspace, adds
// nothing, so creating it later changes the digest. Content that cannot be
// encoded (a channel, a func) still gives a digest, of its %#v text.
func NewItem(kind Kind, name, source, detail string, content any, workspace string, files ...string) Item {
	h := sha256.New()
	field := func(s string) {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	field("aidex-trust-v1")
	field(string(kind))
	field(name)
	data, err := json.Marshal(content)
	if err != nil {
		data = fmt.Appendf(nil, "%#v", content)
	}
	field(string(data))
	for _, f := range WorkspaceFiles(workspace, files) {
		field("file")
		field(f.Rel)
		field(f.Digest)
	}
	return Item{Kind: kind, Name: name, Source: source, Detail: detail, Digest: "sha256:" + hex.EncodeToString(h.Sum(nil))}
}

// File is a workspace file an item runs: Rel its path relative to the
// workspace (slash-separated), Digest "sha256:HEX SIZE" of its bytes.
type File struct {
	Rel    string
	Digest string
}

// WorkspaceFiles returns the regular files of paths (absolute, or relative
// to workspace) that lie inside workspace once symbolic links are
// resolved, with their digests, sorted and without repeats; at most
// maxFiles. A path with "=" also counts for what follows it (an argument
// --config=FILE). Other paths (missing, directories, outside) are left out.
func WorkspaceFiles(workspace string, paths []string) []File {
	if workspace == "" || len(paths) == 0 {
		return nil
	}
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []File
	var candidates []string
	for _, p := range paths {
		candidates = append(candidates, p)
		if _, v, ok := strings.Cut(p, "="); ok { // --config=FILE
			candidates = append(candidates, v)
		}
	}
	for _, p := range candidates {
		if p == "" || strings.ContainsRune(p, 0) {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(workspace, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(root, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) || rel == "." {
			continue
		}
		rel = filepath.ToSlash(rel)
		if seen[rel] {
			continue
		}
		d, ok := fileDigest(real)
		if !ok {
			continue
		}
		seen[rel] = true
		out = append(out, File{Rel: rel, Digest: d})
		if len(out) == maxFiles {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out
}

// fileDigest hashes a regular file's first maxFileBytes and its size.
func fileDigest(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxFileBytes)); err != nil {
		return "", false
	}
	return fmt.Sprintf("sha256:%x %d", h.Sum(nil), st.Size()), true
}

// SortItems sorts items by kind, name and source, for stable listings.
func SortItems(items []Item) {
	slices.SortStableFunc(items, func(a, b Item) int {
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Source, b.Source)
	})
}
