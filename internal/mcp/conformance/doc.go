// Package conformance holds the run of the official MCP conformance suite
// (npm @modelcontextprotocol/conformance, pinned in .ci/run) against aidex:
// `aidex mcp serve` over streamable HTTP and over stdio, and aidex's MCP
// client. The suite's server mode takes only a URL and its client mode runs
// a command; the package's tests bring the adapters it needs: a proxy that
// adds the bearer token of `aidex mcp serve --http`, a bridge from
// streamable HTTP to `aidex mcp serve` over stdio, and a client program
// that connects aidex's MCP client (the application service's, as a
// session starts it) to the suite's test servers.
//
// Scenarios that need the suite's own fixture tools, prompts or resources,
// or exercise a capability aidex does not declare, are not counted; the
// tests keep the table of those and why, and fail when a counted scenario
// fails.
package conformance
