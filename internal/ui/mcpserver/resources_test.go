package mcpserver

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// The server declares completions and resource subscriptions, and offers
// the workspace's files as a resource template.
func TestDeclaresCompletionsAndSubscriptions(t *testing.T) {
	f := newFixture(t, "")
	cs := f.connect(t, nil)
	caps := cs.InitializeResult().Capabilities
	require.NotNil(t, caps.Completions, "completions capability")
	require.NotNil(t, caps.Resources, "resources capability")
	require.True(t, caps.Resources.Subscribe, "resources.subscribe")
	res, err := cs.ListResourceTemplates(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, res.ResourceTemplates, 1)
	require.Equal(t, FileTemplate, res.ResourceTemplates[0].URITemplate)
}

// A workspace file is read as read_file shows it; a path out of the
// workspace, another URI and a missing file are errors naming the
// cause, and nothing outside is read.
func TestReadResourceThroughThePolicy(t *testing.T) {
	f := newFixture(t, "")
	require.NoError(t, os.WriteFile(filepath.Join(f.home.WS, "hello.txt"), []byte("hello from the workspace\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(f.home.Root, "outside"), []byte("SECRET-OUTSIDE"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(f.home.Root, "outside"), filepath.Join(f.home.WS, "link")))
	cs := f.connect(t, nil)
	ctx := context.Background()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: FileURIPrefix + "hello.txt"})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	require.Contains(t, res.Contents[0].Text, "hello from the workspace")
	require.Equal(t, FileURIPrefix+"hello.txt", res.Contents[0].URI)
	for _, tc := range []struct{ uri, want string }{
		{FileURIPrefix + "../outside", "not found"},
		{FileURIPrefix + "link", "outside the workspace"},
		{"file:///etc/passwd", "not found"},
		{FileURIPrefix + "missing.txt", "missing.txt"},
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
		require.Error(t, err, tc.uri)
		require.Contains(t, err.Error(), tc.want, tc.uri)
		require.NotContains(t, err.Error(), "SECRET-OUTSIDE")
	}
}

// completion/complete completes the template's path from the workspace:
// names under the typed directory, directories with "/", hidden ones
// only when asked for, never outside the workspace; other references get
// an empty list.
func TestCompletePath(t *testing.T) {
	f := newFixture(t, "")
	for _, p := range []string{"src/main.go", "src/main_test.go", "src/util/x.go", "README.md", ".env"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(f.home.WS, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(f.home.WS, p), nil, 0o600))
	}
	require.NoError(t, os.Symlink(f.home.Root, filepath.Join(f.home.WS, "up")))
	cs := f.connect(t, nil)
	complete := func(ref *mcp.CompleteReference, arg, value string) []string {
		t.Helper()
		res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
		require.NoError(t, err)
		require.NotNil(t, res.Completion.Values)
		return res.Completion.Values
	}
	file := &mcp.CompleteReference{Type: "ref/resource", URI: FileTemplate}
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"src/ma", []string{"src/main.go", "src/main_test.go"}},
		{"src/", []string{"src/main.go", "src/main_test.go", "src/util/"}},
		{"R", []string{"README.md"}},
		{".e", []string{".env"}},
		{"../", []string{}},
		{"/etc/", []string{}},
		{"up/", []string{}},
	} {
		require.Equal(t, tc.want, complete(file, "path", tc.value), tc.value)
	}
	require.NotContains(t, complete(file, "path", ""), ".env")
	require.Empty(t, complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "nope"}, "arg1", "x"))
	require.Empty(t, complete(file, "other", "src/"))
}

// A client subscribed to a workspace file is told when it changes, once
// per change; after unsubscribing it is not told again.
func TestSubscribeNotifiesChanges(t *testing.T) {
	f := newFixture(t, "")
	f.srv.pollEvery = 10 * time.Millisecond
	file := filepath.Join(f.home.WS, "watched.txt")
	require.NoError(t, os.WriteFile(file, []byte("one"), 0o600))
	updated := make(chan string, 10)
	cs := f.connect(t, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}})
	ctx := context.Background()
	uri := FileURIPrefix + "watched.txt"
	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}))
	require.NoError(t, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://not-aidex"}), "another URI is accepted (it never changes)")
	require.NoError(t, os.WriteFile(file, []byte("two, longer"), 0o600))
	select {
	case got := <-updated:
		require.Equal(t, uri, got)
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/updated after the file changed")
	}
	require.NoError(t, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}))
	require.NoError(t, cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}), "unsubscribing twice is fine")
	for len(updated) > 0 {
		<-updated
	}
	require.NoError(t, os.WriteFile(file, []byte("three, longer still"), 0o600))
	// The poller runs every 10ms; a notification would come within a few
	// rounds. Wait on the poller itself rather than on a clock.
	for i := 0; i < 5; i++ {
		f.srv.mu.Lock()
		w := f.srv.watchers[len(f.srv.watchers)-1]
		f.srv.mu.Unlock()
		w.check()
	}
	require.NoError(t, cs.Ping(ctx, nil)) // what was sent before has arrived
	select {
	case got := <-updated:
		t.Fatalf("notified after unsubscribing: %s", got)
	default:
	}
}

// Whatever is typed, completion offers only paths inside the workspace
// (valid relative paths, no "..", nothing through a symlink out of it),
// and relOf accepts only such paths.
func FuzzCompletionStaysInTheWorkspace(f *testing.F) {
	ws := f.TempDir()
	outside := f.TempDir()
	for _, p := range []string{"a/b.txt", "a/c/d.go", ".hidden", "x"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), nil, 0o600); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), nil, 0o600); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"", "a/", "a/c/", "../", "/", "out/", "./a/", "a/../../", ".", "a//", "\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, prefix string) {
		values, _ := completePath(ws, prefix)
		require.LessOrEqual(t, len(values), maxCompletions)
		for _, v := range values {
			p := strings.TrimSuffix(v, "/")
			require.True(t, fs.ValidPath(p), "%q completes to %q", prefix, v)
			require.NotContains(t, v, "secret", "%q completed through the symlink out", prefix)
			_, ok := relOf(FileURIPrefix + p)
			require.True(t, ok, "%q", v)
		}
		if rel, ok := relOf(FileURIPrefix + prefix); ok {
			require.True(t, fs.ValidPath(rel))
			require.False(t, strings.HasPrefix(filepath.Clean(filepath.Join(ws, rel)), outside))
		}
	})
}
