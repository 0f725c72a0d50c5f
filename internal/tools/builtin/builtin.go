// Package builtin assembles aidex's built-in tool set from the tool
// families: [Defs] returns every definition, in the order the model sees
// them, and a func that stops what they start.
//
// The families, in registration order: file (reading, writing, editing,
// listing), search (grep), exec (commands and background processes), git,
// info (file and project information), memory, notes, webfetch, models
// (list_models) and image (generate_image, only with a generator).
package builtin

//go:generate go run ./schemagen

import (
	"encoding/json"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/listmodels"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/exec"
	"github.com/zelvior/aidex/internal/tools/file"
	"github.com/zelvior/aidex/internal/tools/git"
	"github.com/zelvior/aidex/internal/tools/image"
	"github.com/zelvior/aidex/internal/tools/info"
	"github.com/zelvior/aidex/internal/tools/memory"
	"github.com/zelvior/aidex/internal/tools/models"
	"github.com/zelvior/aidex/internal/tools/notes"
	"github.com/zelvior/aidex/internal/tools/search"
	webfetchtool "github.com/zelvior/aidex/internal/tools/webfetch"
	"github.com/zelvior/aidex/internal/webpage"
)

// Options are what the families need from the configuration and the
// session. The zero value is usable: five background processes, memory
// family "other" without global memories, web_fetch refusing private
// addresses, list_models without a catalog (it then fails when called)
// and no generate_image.
type Options struct {
	// MaxBackgroundProcesses caps the background processes running at
	// once; 0 or less means exec.DefaultMaxBackgroundProcesses.
	MaxBackgroundProcesses int
	// MemoryFamily is the model family directory of the memory tool
	// (memory.Family(provider, model)); "" means "other".
	MemoryFamily string
	// MemoryGlobalDir is the global memory directory
	// (memory.GlobalDir(configDir)); "" disables global memories.
	MemoryGlobalDir string
	// MemoryDir is the memory tool's directory of the workspace
	// (memory.Dir(stateDir, workspace)); "" makes the memory tool fail.
	MemoryDir string
	// MemoryUntrusted marks a workspace the user has not trusted:
	// save_memory refuses the global scope there.
	MemoryUntrusted bool
	// WebFetchAllowPrivate lets web_fetch reach loopback, private and
	// link-local addresses.
	WebFetchAllowPrivate bool
	// Catalog is the provider catalog list_models reads; nil makes
	// list_models answer that it is not configured.
	Catalog *catalog.Catalog
	// Lister fetches and caches live model lists for list_models; nil
	// means the catalog's static lists only (no network).
	Lister *catalog.Lister
	// CurrentProvider is the session's provider, list_models' default.
	CurrentProvider string
	// Image generates images for generate_image; nil leaves
	// generate_image out.
	Image *imagegen.Generator
}

// Defs returns every built-in tool definition in registration order (the
// order of the package documentation's families) and a func that stops
// what the tools start: it closes the background process table, killing
// the processes still running, and waits for them. Call it once when the
// session ends; calling it again does nothing. Register the definitions
// with tools.Registry.Register.
//
// Each definition's parameter schema is the one generated at build time
// (schemas_gen.go, `go generate ./internal/tools/builtin`), so that a
// start does not build them by reflection; a test fails when one differs
// from what its parameter struct gives.
func Defs(o Options) (defs []tools.Def, closeFn func()) {
	defs, closeFn = reflected(o)
	schemas := generatedSchemas()
	for i, d := range defs {
		if s := generatedSchema(schemas, d.Name); s != "" {
			defs[i] = d.WithSchema(json.RawMessage(s))
		}
	}
	return defs, closeFn
}

// reflected is Defs with each schema built from its parameter struct.
func reflected(o Options) (defs []tools.Def, closeFn func()) {
	procs := exec.NewProcessTable(o.MaxBackgroundProcesses)
	for _, group := range [][]tools.Def{
		file.Tools(),
		search.Tools(),
		exec.Tools(exec.Options{Procs: procs}),
		git.Tools(),
		info.Tools(),
		memory.Tools(memory.Options{Family: o.MemoryFamily, Dir: o.MemoryDir, GlobalDir: o.MemoryGlobalDir, NoGlobalSave: o.MemoryUntrusted}),
		notes.Tools(notes.Options{}),
		webfetchtool.Tools(webpage.New(webpage.Options{AllowPrivate: o.WebFetchAllowPrivate})),
		models.Tools(listmodels.Options{Catalog: o.Catalog, Lister: o.Lister, Current: o.CurrentProvider}),
	} {
		defs = append(defs, group...)
	}
	if o.Image != nil {
		defs = append(defs, image.Tools(o.Image)...)
	}
	return defs, func() { _ = procs.Close() }
}
