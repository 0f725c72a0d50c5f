package permission

import (
	"path/filepath"
	"testing"

	"github.com/zelvior/aidex/internal/kind"
)

// TestGitDirLookalikeWritesRefused is hole 3 of issue 22: a write that
// would make the workspace root look like a git directory (HEAD, then
// config, objects/, refs/ beside it) is refused in every mode, by the
// file tools and by shell redirections alike; a project's own config/
// directory stays writable.
func TestGitDirLookalikeWritesRefused(t *testing.T) {
	f := newFixture(t)
	write := func(path string) Request { return Request{Tool: "write_file", Kind: kind.Write, Paths: []string{path}} }
	mkdir := func(path string) Request {
		return Request{Tool: "create_directory", Kind: kind.Write, Paths: []string{path}}
	}
	for _, mode := range []Mode{ModeAutoEdit, ModeYolo} {
		p := newPolicy(t, f, mode, true)
		for _, c := range []struct {
			req  Request
			want Decision
		}{
			{write("HEAD"), Deny},
			{write("head"), Deny},
			{write("./HEAD"), Deny},
			{write("sub/../HEAD"), Deny},
			{execReq("echo 'ref: refs/heads/main' > HEAD"), Deny},
			{execReq("printf x >> HEAD"), Deny},
			{write("config"), Allow},
			{write("config/app.yml"), Allow},
			{write("objects/x"), Allow},
			{write("sub/HEAD.md"), Allow},
			{write("sub/HEADER"), Allow},
		} {
			if v := p.Check(c.req); v.Decision != c.want {
				t.Errorf("%s: %s %v %q: %s (%s), want %s", mode, c.req.Tool, c.req.Paths, c.req.Command, v.Decision, v.Reason, c.want)
			}
		}
	}
	// Once a HEAD is there (a bare repository, or one written by hand),
	// config, objects/, refs/ and packed-refs beside it are refused too.
	mustWrite(t, filepath.Join(f.root, "HEAD"), "ref: refs/heads/main\n")
	p := newPolicy(t, f, ModeYolo, true)
	for _, req := range []Request{write("config"), write("objects/ab/cd"), mkdir("refs"), write("refs/heads/main"), write("packed-refs"),
		execReq("echo '[core]' > config")} {
		if v := p.Check(req); v.Decision != Deny {
			t.Errorf("beside HEAD: %s %v %q: %s (%s), want deny", req.Tool, req.Paths, req.Command, v.Decision, v.Reason)
		}
	}
	if v := p.Check(write("config/app.yml")); v.Decision != Allow {
		t.Errorf("config/app.yml beside a HEAD (git reads only a config file): %s (%s)", v.Decision, v.Reason)
	}
	if v := p.Check(Request{Tool: "read_file", Kind: kind.Read, Paths: []string{"HEAD"}}); v.Decision != Allow {
		t.Errorf("reading HEAD: %s (%s)", v.Decision, v.Reason)
	}
}

// TestGitReadOnlyOnlyByTable is hole 3 of issue 22 on the analysis side:
// git is read-only only for the subcommands and options of the table; an
// alias (which may be "!program"), options that run configured programs
// and -c settings are not, while everyday read-only git still is.
func TestGitReadOnlyOnlyByTable(t *testing.T) {
	f := newFixture(t)
	p := newPolicy(t, f, ModePlan, true)
	for _, c := range []struct {
		cmd  string
		want Decision
	}{
		{"git status", Allow},
		{"git log --oneline -5", Allow},
		{"git diff", Allow},
		{"git diff --stat", Allow},
		{"git show HEAD --stat", Allow},
		{"git lg", Deny},
		{"git st", Deny},
		{"git -c alias.x='!touch /tmp/p' x", Deny},
		{"git -c core.pager='touch /tmp/p' log", Deny},
		{"git -c diff.x.textconv=evil diff", Deny},
		{"git diff --ext-diff", Deny},
		{"git log -p --ext-diff", Deny},
		{"git diff --textconv", Deny},
		{"git show --textconv HEAD", Deny},
		{"git log --show-signature", Deny},
		{"git grep --textconv x", Deny},
		{"git grep -O x", Deny},
		{"git --exec-path=. status", Deny},
		{"git --git-dir=sub status", Deny},
		{"git --work-tree=/ status", Deny},
		{"cd sub && git status", Deny},
	} {
		if v := p.Check(execReq(c.cmd)); v.Decision != c.want {
			t.Errorf("plan mode %q: %s (%s: %s), want %s", c.cmd, v.Decision, v.Rule, v.Reason, c.want)
		}
	}
}
