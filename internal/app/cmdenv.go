package app

import (
	"os"
	"slices"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
	"github.com/zelvior/aidex/internal/tools/search"
)

// commandEnvPolicy is the credential scrubbing of every command a
// runtime runs (tools, Ralph's verify_command, the user's !command), from
// its configuration: the variables named by each provider's api_key_env
// and the catalog's key variables are removed whatever they are called,
// and command_env_allow names variables passed through anyway. The
// runtime carries it to each tool environment ([toolRoom.toolEnv]) and
// to [Runtime.CommandEnviron].
func commandEnvPolicy(cfg *config.Config, cat *catalog.Catalog) proc.EnvPolicy {
	var secret []string
	add := func(names ...string) {
		for _, n := range names {
			if n != "" && !slices.Contains(secret, n) {
				secret = append(secret, n)
			}
		}
	}
	if cat != nil {
		for _, p := range cat.Providers() {
			add(p.APIKeyEnv)
			add(p.KeyEnv...)
		}
	}
	for _, p := range cfg.Providers {
		add(p.APIKeyEnv)
	}
	slices.Sort(secret)
	return proc.EnvPolicy{Secret: secret, Allow: cfg.CommandEnvAllow}
}

// CommandEnviron returns the environment of a command aidex starts
// outside the tools, such as the user's !command in the terminal UI and
// the line mode (its output joins the conversation): os.Environ() without
// credentials, as the runtime's tools' commands get it.
func (rt *Runtime) CommandEnviron() []string {
	return proc.ChildEnviron(os.Environ(), nil, rt.envPolicy)
}

// toolEnv is the tool environment over ws for this runtime: in-memory
// read tracking and checkpoints (tools.NewEnv), the default grep backend,
// the runtime's credential scrubbing and its OS sandbox. Errors: the
// sandbox was asked for and cannot be built (see [Runtime.Sandbox]).
func (rt toolRoom) toolEnv(ws tools.Resolver) (*tools.Env, error) {
	env := tools.NewEnv(ws)
	env.Grep = search.DefaultBackend()
	env.EnvPolicy = rt.envPolicy
	env.EnsureTrailingNewline = rt.Config.Tools.EnsureTrailingNewline
	env.ImageSide = rt.modelRoom().imageSide()
	env.LineHashes = rt.engineRoom().editFormat() == editHashline
	on, err := rt.sandboxOn()
	if err != nil {
		return nil, err
	}
	if on {
		env.Confiner = lazyConfiner{rt.runtimeView}
	}
	return env, nil
}
