package webfetch

import (
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/webpage"
)

// Tools returns the web tools: web_fetch, fetching through f (nil makes
// every call fail with a configuration error). Register them with
// tools.Registry.Register.
func Tools(f *webpage.Fetcher) []tools.Def {
	return []tools.Def{webFetchDef(f)}
}
