package web

import (
	"net/http"
)

// APIPrefix is the versioned path of the HTTP API: every endpoint is
// served under /api/v1/ (documented in docs/openapi.yaml). The same
// endpoints under /api/ (without the version) are deprecated aliases kept
// for one release: their responses carry "Deprecation: true" and a Link
// to the versioned path.
const APIPrefix = "/api/v1"

// apiRoute is one endpoint of the HTTP API: its method, its path below
// the API prefix ("/status"), its handler, and v1Only for endpoints that
// never had an unversioned path.
type apiRoute struct {
	method  string
	path    string
	handler http.HandlerFunc
	v1Only  bool
}

// APIRoute is one endpoint the server registers: Method and Path, the
// path under /api/v1 with {name} wildcards ("/sessions/{id}"). Alias
// reports a deprecated alias under /api/ as well.
type APIRoute struct {
	Method string
	Path   string
	Alias  bool
}

// Routes lists the endpoints of the HTTP API as the server registers
// them (for the OpenAPI document's test and for docs).
func (s *Server) Routes() []APIRoute {
	var list []APIRoute
	for _, r := range s.apiRoutes() {
		list = append(list, APIRoute{Method: r.method, Path: APIPrefix + r.path, Alias: !r.v1Only})
	}
	return list
}

// apiRoutes is the server's API routing table: the one place endpoints
// are registered.
func (s *Server) apiRoutes() []apiRoute {
	return []apiRoute{
		{method: "GET", path: "/status", handler: s.runtimeAPI.handleStatus},
		{method: "GET", path: "/models", handler: s.runtimeAPI.handleModels},
		{method: "POST", path: "/models/switch", handler: s.runtimeAPI.handleModelSwitch},
		{method: "POST", path: "/provider/switch", handler: s.runtimeAPI.handleProviderSwitch},
		{method: "GET", path: "/providers", handler: s.runtimeAPI.handleProviders},
		{method: "GET", path: "/config", handler: s.runtimeAPI.handleConfigGet},
		{method: "POST", path: "/config", handler: s.runtimeAPI.handleConfigPost},
		{method: "GET", path: "/history", handler: s.historyAPI.handleHistory},
		{method: "POST", path: "/history/clear", handler: s.historyAPI.handleHistoryClear},
		{method: "GET", path: "/tools", handler: s.runtimeAPI.handleTools},
		{method: "GET", path: "/mcp", handler: s.runtimeAPI.handleMCP},
		{method: "POST", path: "/tool", handler: s.runtimeAPI.handleTool},
		{method: "GET", path: "/fs/list", handler: s.filesAPI.handleFSList},
		{method: "GET", path: "/fs/read", handler: s.filesAPI.handleFSRead},
		{method: "POST", path: "/fs/write", handler: s.filesAPI.handleFSWrite},
		{method: "GET", path: "/image-providers", handler: s.runtimeAPI.handleImageProviders},
		{method: "POST", path: "/image", handler: s.runtimeAPI.handleImage},
		{method: "GET", path: "/ralph", handler: s.ralphAPI.handleRalphList},
		{method: "GET", path: "/ralph/events", handler: s.ralphAPI.handleRalphEvents},
		{method: "POST", path: "/ralph/add", handler: s.ralphAPI.handleRalphAdd},
		{method: "POST", path: "/ralph/clear", handler: s.ralphAPI.handleRalphClear},
		{method: "POST", path: "/ralph/reset", handler: s.ralphAPI.handleRalphReset},
		{method: "POST", path: "/ralph/stop", handler: s.ralphAPI.handleRalphStop},
		{method: "POST", path: "/ralph/pause", handler: s.ralphAPI.handleRalphPause(true)},
		{method: "POST", path: "/ralph/resume", handler: s.ralphAPI.handleRalphPause(false)},
		{method: "POST", path: "/ralph/run", handler: s.ralphAPI.handleRalphRun},
		{method: "POST", path: "/chat", handler: s.handleChat},
		{method: "POST", path: "/stream/start", handler: s.handleStreamStart},
		{method: "GET", path: "/stream", handler: s.handleStream},
		{method: "POST", path: "/upload", handler: s.handleUpload},
		{method: "POST", path: "/chat/stop", handler: s.handleChatStop},
		{method: "POST", path: "/action/start", handler: s.handleActionStart},
		{method: "POST", path: "/action/resume", handler: s.handleActionResume},
		{method: "POST", path: "/action/cancel", handler: s.handleChatStop},
		{method: "GET", path: "/sessions", handler: s.historyAPI.handleSessions},
		{method: "POST", path: "/sessions", handler: s.handleSessionCreate, v1Only: true},
		{method: "GET", path: "/sessions/{id}", handler: s.historyAPI.handleSession},
		{method: "POST", path: "/sessions/{id}/resume", handler: s.historyAPI.handleResume},
		{method: "POST", path: "/sessions/{id}/messages", handler: s.handleSessionMessage, v1Only: true},
		{method: "GET", path: "/sessions/{id}/events", handler: s.handleSessionEvents, v1Only: true},
		{method: "POST", path: "/sessions/{id}/cancel", handler: s.handleSessionCancel, v1Only: true},
		{method: "GET", path: "/sessions/{id}/checkpoints", handler: s.historyAPI.handleCheckpoints},
		{method: "POST", path: "/sessions/{id}/rewind", handler: s.historyAPI.handleRewind},
		{method: "GET", path: "/approvals", handler: s.answersAPI.handleApprovalsList},
		{method: "POST", path: "/approvals/{id}", handler: s.answersAPI.handleApproval},
		{method: "GET", path: "/interactions", handler: s.answersAPI.handleInteractionsList},
		{method: "POST", path: "/interaction/{id}", handler: s.answersAPI.handleInteraction},
		{method: "GET", path: "/multi", handler: s.answersAPI.handleMultiGet, v1Only: true},
		{method: "POST", path: "/multi", handler: s.answersAPI.handleMultiPost, v1Only: true},
		{method: "POST", path: "/choices/{id}", handler: s.answersAPI.handleChoice, v1Only: true},
	}
}

// deprecatedAlias serves an unversioned /api/ path with the handler of
// its /api/v1/ successor, marked deprecated: "Deprecation: true" and a
// Link rel="successor-version" to the versioned path.
func deprecatedAlias(path string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Deprecation", "true")
		w.Header().Set("Link", "<"+APIPrefix+path+">; rel=\"successor-version\"")
		h(w, r)
	}
}
