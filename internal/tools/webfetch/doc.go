// Package webfetch is the web tool family: web_fetch (kind.Network,
// standard profile) fetches a public web page or text file through
// internal/webfetch and returns it as Markdown, text or HTML. Its URL is
// the call's policy subject (Spec.Subject), so permission rules such as
// web_fetch(https://docs.example.com/*) match it.
package webfetch
