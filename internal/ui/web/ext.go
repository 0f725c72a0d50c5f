package web

import (
	"context"
	"net/http"

	"github.com/zelvior/aidex/internal/app/images"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/ralph"
)

// Ralph is what the Ralph endpoints need of the task loop of the
// workspace: its task list and its runs. *ralph.Service has these methods
// (see its documentation for shapes and errors). Server builds one over its
// application service unless Options.Ralph gives another (tests).
type Ralph interface {
	RalphTasks
	RalphRuns
}

// RalphTasks is the task-list half of [Ralph].
type RalphTasks interface {
	// Snapshot returns the task list with the run state and counts.
	Snapshot() (ralph.Snapshot, error)
	// Add appends tasks (ids generated when missing) and returns them as
	// stored.
	Add(ctx context.Context, tasks ...ralph.Task) ([]ralph.Task, error)
	// Clear removes every task; ralph.ErrRunning while a run is going.
	Clear(ctx context.Context) (int, error)
	// Reset puts a task back to pending.
	Reset(ctx context.Context, ref string) (ralph.Task, error)
}

// RalphRuns is the run-control half of [Ralph].
type RalphRuns interface {
	// Stop, Pause and Resume control the running loop (of any process);
	// ralph.ErrNotRunning when none is going.
	Stop() error
	Pause() error
	Resume() error
	// Start claims the run (ralph.ErrRunning at once when one is going)
	// and works in the background, reporting to emit; wait returns the
	// run's summary when it ends.
	Start(ctx context.Context, o ralph.RunOptions, emit func(ralph.Event)) (wait func() (*ralph.Summary, error), err error)
}

var _ Ralph = (*ralph.Service)(nil)

// ImageGenerator makes one image for POST /api/image; the generator of
// app.Runtime.ImageGenerator has this method. Errors are the image
// service's (answered 502).
type ImageGenerator interface {
	Generate(ctx context.Context, r images.Request) (images.Image, error)
}

// ImageProvider is a known image-generation service in GET
// /api/image-providers (see images.Provider).
type ImageProvider = images.Provider

// handleImageProviders lists image providers and the configured one (key
// never shown, only whether it is set): GET /api/image-providers.
func (s runtimeAPI) handleImageProviders(w http.ResponseWriter, r *http.Request) {
	c := s.Runtime().Config
	key := ""
	if c.ImageAPIKey != "" {
		key = config.Mask(c.ImageAPIKey)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"providers": images.Providers(),
		"configured": map[string]any{"provider": c.ImageProvider, "model": c.ImageModel, "base_url": c.ImageBaseURL,
			"api_key_set": c.ImageAPIKey != "", "api_key": key, "cloudflare_account_id": c.CloudflareAccountID},
		"available": true,
	})
}
