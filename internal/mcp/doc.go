// Package mcp is aidex's client of Model Context Protocol servers (built on
// github.com/modelcontextprotocol/go-sdk): a [Manager] starts the configured
// servers ([config.MCPServer]: stdio, streamable HTTP, legacy SSE) in parallel,
// keeps their tool, resource and prompt lists, and turns each tool into a
// [tools.Def] named mcp__SERVER__TOOL, so MCP tools go through the same
// prepare → permission → run pipeline as aidex's own tools.
//
// Lifecycle: a server that fails or times out at start is reported in one line
// (name, cause, its last stderr line) and left out; a stdio server's stderr goes
// to a log file; a crashed stdio server is started again once, on the next call;
// Close ends every server (a stdio server's whole process group). Nothing here
// runs at package init: a Manager exists only once a session with servers starts.
package mcp
