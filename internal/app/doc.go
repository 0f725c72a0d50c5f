// Package app is aidex's application service: the one layer every front
// end (terminal UI, line mode, headless runs, web UI, Ralph) uses, so they
// never drift apart.
//
// It owns loading the runtime ([Load], [LoadBase]: configuration, the
// provider catalog, the chosen provider and model, the model client),
// building a session's engine ([Runtime.Engine]: tools, permission policy,
// system prompt), the one tool pipeline shared by the engine and direct
// tool calls (prepare → permission.Request built in one place → decide →
// run), and the Ralph backend ([ralphBackend]). Front ends keep input and
// rendering only.
package app
