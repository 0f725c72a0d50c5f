package app

// The rooms of Runtime (issue 34): Runtime keeps what the front ends call
// (Engine, Client, CallTool, Sandbox, Models, …); what builds an engine,
// sets up its tools, resolves models and loads the project's content is
// in the room types below. A room is a view over the runtime, made on
// each call: a runtime is copied by value when it changes model or
// workspace (withModel, forSubagent, in), so a room that held its own
// pointer would keep seeing the old copy.
//
//   - engineRoom (engine.go, harness.go, hooks.go, budget.go, mcp.go,
//     subagents.go, snapshots.go): builds an engine and its adapters —
//     registry, policy, system prompt, hooks, budget, checkpoints, MCP
//     tools, the task tool;
//   - toolRoom (sandbox.go, shell.go, cmdenv.go, toolcall.go, eval.go):
//     the tools' environment — sandbox, shell, commands' environment;
//   - modelRoom (setup.go, models.go, routing.go, vision.go, attach.go,
//     client.go): choosing the provider and model, routing, what the
//     model can take in;
//   - [Plugins] (plugins.go, pluginops.go) and [ProjectContent]
//     (content.go, skills.go, custom.go, claudesettings.go): the enabled
//     plugins and the project's content items, their approvals; exported,
//     for the front ends' plugin and content commands.

// runtimeView names the runtime a room embeds: the embedded field is
// unexported, so a front end holding a room cannot reach the runtime
// through it.
type runtimeView = Runtime

// engineRoom builds and derives engines and their adapters (see the
// comment at the top of rooms.go).
type engineRoom struct{ *runtimeView }

// toolRoom is the tools' environment: the sandbox, the shell and the
// environment of the commands the tools run.
type toolRoom struct{ *runtimeView }

// modelRoom chooses the provider and model and routes requests to models.
type modelRoom struct{ *runtimeView }

// Plugins are the runtime's Claude Code plugins and marketplaces: what is
// installed and enabled, and the operations of `aidex plugin` and
// /plugin (add, update, enable, remove, approve their content). Get it
// with [Runtime.Plugins]; it reads the runtime's configuration when
// called.
type Plugins struct{ *runtimeView }

// ProjectContent is the runtime's content items (hooks, commands, skills,
// agents, MCP servers, settings of the project and of plugins) and their
// approvals, with the custom commands, skills and subagent types they
// give. Get it with [Runtime.ProjectContent].
type ProjectContent struct{ *runtimeView }

func (rt *Runtime) engineRoom() engineRoom { return engineRoom{rt} }

func (rt *Runtime) toolRoom() toolRoom { return toolRoom{rt} }

func (rt *Runtime) modelRoom() modelRoom { return modelRoom{rt} }

// Plugins returns the runtime's plugins room.
func (rt *Runtime) Plugins() Plugins { return Plugins{rt} }

// ProjectContent returns the runtime's content room.
func (rt *Runtime) ProjectContent() ProjectContent { return ProjectContent{rt} }
