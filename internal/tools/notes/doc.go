// Package notes is the notes tool family: create_note (kind.Write,
// standard profile, aidex's own bookkeeping) writes a Markdown note with
// front matter into the session workspace's .aidex/notes through
// internal/notes.
package notes
