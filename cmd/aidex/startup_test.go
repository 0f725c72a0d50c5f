package main

import (
	"testing"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// Every package linked into aidex initialises on every start, `aidex
// --version` included (issue 21), so tables that need compiling or large
// regular expressions belong behind sync.OnceValue, in aidex and in the
// libraries it links (third_party/*/PATCHES.md). The limits, in bytes
// allocated during package initialisation:
const (
	// maxInitBytes bounds one aidex package.
	maxInitBytes = 32 << 10
	// maxLibInitBytes bounds one package of a library (glamour's autolink,
	// ~145 KB, moved to aidex-chat with the interactive chat; nats-server's
	// ~185 KB to the aidex-nats helper; chroma's lexers were 1.7 MB, 0.43 MB
	// with upstream's metadata registry, 20 KB with the registry filled on
	// first lookup; excelize 1.3 MB (replaced by aidex's own XLSX reader),
	// bluemonday's CSS tables 0.5 MB before their patches).
	maxLibInitBytes = 256 << 10
	// maxTotalInitBytes bounds all packages together (0.90 MB in this test
	// binary once chroma's registry was filled on first lookup, issue 40,
	// before the chat moved to aidex-chat; 1.31 MB before, 1.53 MB before
	// nats-server moved to aidex-nats; 6 MB before issue 21's patches).
	maxTotalInitBytes = 1024 << 10
)

// chatLibraries are the module paths of the terminal UI's and the line
// mode's libraries, linked into aidex-chat only (issue 40).
var chatLibraries = []string{"charm.land/bubbletea/", "charm.land/bubbles/", "charm.land/glamour/",
	"charm.land/lipgloss/", "github.com/alecthomas/chroma/", "github.com/yuin/goldmark",
	"github.com/microcosm-cc/bluemonday", "github.com/atotto/clipboard"}

// TestPackageInitIsCheap checks what aidex's packages allocate at init,
// and that neither the embedded NATS server nor the chat's libraries are
// linked into it.
func TestPackageInitIsCheap(t *testing.T) {
	forbidden := map[string]string{"github.com/nats-io/nats-server/": "the embedded NATS server belongs in the aidex-nats helper (internal/ralph/dist/natsd), not in every start"}
	for _, lib := range chatLibraries {
		forbidden[lib] = "the interactive chat's libraries belong in aidex-chat (internal/ui/chat), not in every start"
	}
	sharedtest.CheckInitCost(t, sharedtest.InitBudget{Program: "aidex", Own: maxInitBytes, Lib: maxLibInitBytes,
		Total: maxTotalInitBytes, Forbidden: forbidden})
}
