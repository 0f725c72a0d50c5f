package file

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
)

func TestWriteFileCreatesAndCheckpoints(t *testing.T) {
	f := newFixture(t)
	r := f.OK("write_file", m{"path": "sub/dir/new.txt", "content": "hello\nworld\n"})
	require.Equal(t, "Created sub/dir/new.txt (2 lines, 12 bytes)", r.Output)
	require.Equal(t, "hello\nworld\n", f.Read("sub/dir/new.txt"))
	require.Equal(t, "sub/dir/new.txt", r.Meta.Path)
	require.Contains(t, r.Meta.Diff, "+++ b/sub/dir/new.txt")
	require.Contains(t, r.Meta.Diff, "+hello")
	cps := f.Cps.Entries()
	require.Len(t, cps, 1)
	require.Equal(t, filepath.Join(f.Root, "sub/dir/new.txt"), cps[0].Path)
	require.False(t, cps[0].Existed)
	// the new file counts as read: it can be overwritten straight away
	f.OK("write_file", m{"path": "sub/dir/new.txt", "content": "bye\n"})
	require.Equal(t, "bye\n", f.Read("sub/dir/new.txt"))
	require.Equal(t, "hello\nworld\n", string(f.Cps.Entries()[1].Old))
	require.True(t, f.Cps.Entries()[1].Existed)
}

func TestWriteFileReadBeforeWrite(t *testing.T) {
	f := newFixture(t)
	p := f.Write("a.txt", "original\n")
	r := f.Fail("write_file", m{"path": "a.txt", "content": "new\n"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "has not been read in this session: call read_file on it first")
	require.Equal(t, "original\n", f.Read("a.txt"))

	f.OK("read_file", m{"path": "a.txt"})
	// the user edits the file in an editor after the model read it
	require.NoError(t, os.WriteFile(p, []byte("user change\n"), 0o644))
	r = f.Fail("write_file", m{"path": "a.txt", "content": "new\n"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "changed on disk since you last read it")
	require.Equal(t, "user change\n", f.Read("a.txt"), "the user's change is preserved")
	require.Empty(t, f.Cps.Entries())

	f.OK("read_file", m{"path": "a.txt"})
	f.OK("write_file", m{"path": "a.txt", "content": "new\n"})
	require.Equal(t, "new\n", f.Read("a.txt"))

	// same size and mtime forced back: the hash still notices the change
	fi, _ := os.Stat(p)
	require.NoError(t, os.WriteFile(p, []byte("NEW\n"), 0o644))
	require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	f.Fail("write_file", m{"path": "a.txt", "content": "x\n"}, tools.CategoryValidation)
}

func TestSkipReadCheck(t *testing.T) {
	f := newFixture(t)
	f.Env.SkipReadCheck = true
	f.Write("a.txt", "original\n")
	f.OK("write_file", m{"path": "a.txt", "content": "new\n"})
	require.Equal(t, "new\n", f.Read("a.txt"))
}

func TestWriteFileKeepsFormat(t *testing.T) {
	f := newFixture(t)
	p := f.Write("crlf.txt", "a\r\nb\r\n")
	require.NoError(t, os.Chmod(p, 0o755))
	f.OK("read_file", m{"path": "crlf.txt"})
	r := f.OK("write_file", m{"path": "crlf.txt", "content": "a\nc\n"})
	require.Equal(t, "a\r\nc\r\n", f.Read("crlf.txt"), "CRLF kept")
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "mode kept")
	require.Contains(t, r.Meta.Diff, "-b\r")

	f.Write("bom.txt", "\uFEFFx\n")
	f.OK("read_file", m{"path": "bom.txt"})
	f.OK("write_file", m{"path": "bom.txt", "content": "y\n"})
	require.Equal(t, "\uFEFFy\n", f.Read("bom.txt"), "BOM kept")

	r = f.Fail("write_file", m{"path": "bom.txt", "content": "y\n"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "identical")
}

func TestWriteFileRefusals(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, os.Mkdir(filepath.Join(f.Root, "d"), 0o755))
	f.Write("bin.dat", "\x00\x01")
	f.Fail("write_file", m{"path": "d", "content": "x"}, tools.CategoryValidation)
	f.Fail("write_file", m{"path": "bin.dat", "content": "x"}, tools.CategoryValidation)
	big := strings.Repeat("x", tools.MaxWriteBytes+1)
	r := f.Fail("write_file", m{"path": "big.txt", "content": big}, tools.CategoryValidation)
	require.Contains(t, r.Error, "16 MiB")
	require.False(t, f.Exists(filepath.Join(f.Root, "big.txt")))
}

func TestAppendFile(t *testing.T) {
	f := newFixture(t)
	f.OK("append_file", m{"path": "log.txt", "content": "one\n"})
	require.Equal(t, "one\n", f.Read("log.txt"))
	f.OK("append_file", m{"path": "log.txt", "content": "two\n"})
	require.Equal(t, "one\ntwo\n", f.Read("log.txt"))

	f.Write("nofinal.txt", "a\r\nb")
	f.Fail("append_file", m{"path": "nofinal.txt", "content": "c"}, tools.CategoryValidation) // not read
	f.OK("read_file", m{"path": "nofinal.txt"})
	r := f.OK("append_file", m{"path": "nofinal.txt", "content": "c\nd"})
	require.Equal(t, "a\r\nb\r\nc\r\nd", f.Read("nofinal.txt"))
	require.NotEmpty(t, r.Meta.Diff)
	f.Fail("append_file", m{"path": "nofinal.txt", "content": ""}, tools.CategoryValidation)
}

func TestCreateDirectory(t *testing.T) {
	f := newFixture(t)
	r := f.OK("create_directory", m{"path": "a/b/c"})
	require.Equal(t, "Created directory a/b/c", r.Output)
	fi, err := os.Stat(filepath.Join(f.Root, "a/b/c"))
	require.NoError(t, err)
	require.True(t, fi.IsDir())
	r = f.OK("create_directory", m{"path": "a/b"})
	require.Contains(t, r.Output, "already exists")
	f.Write("file", "x")
	f.Fail("create_directory", m{"path": "file"}, tools.CategoryValidation)
}

func TestDeleteFile(t *testing.T) {
	f := newFixture(t)
	p := f.Write("a.txt", "content\n")
	f.Fail("delete_file", m{"path": "a.txt"}, tools.CategoryValidation) // not read
	f.OK("read_file", m{"path": "a.txt"})
	r := f.OK("delete_file", m{"path": "a.txt"})
	require.Contains(t, r.Output, "Deleted a.txt")
	require.False(t, f.Exists(p))
	require.Contains(t, r.Meta.Diff, "-content")
	cps := f.Cps.Entries()
	require.Len(t, cps, 1)
	require.Equal(t, "content\n", string(cps[0].Old))
	require.True(t, cps[0].Existed)

	f.Fail("delete_file", m{"path": "a.txt"}, tools.CategoryNotFound)

	// binary files cannot be read, so they need no read; still checkpointed
	f.Write("b.bin", "\x00\x01")
	f.OK("delete_file", m{"path": "b.bin"})
	require.Equal(t, "\x00\x01", string(f.Cps.Entries()[1].Old))

	require.NoError(t, os.MkdirAll(filepath.Join(f.Root, "empty"), 0o755))
	f.OK("delete_file", m{"path": "empty/"})
	f.Write("full/x.txt", "x")
	r = f.Fail("delete_file", m{"path": "full"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "not empty")
	r = f.Fail("delete_file", m{"path": "."}, tools.CategoryValidation)
	require.Contains(t, r.Error, "workspace root")
}

func TestDeleteSymlinkRemovesOnlyTheLink(t *testing.T) {
	f := newFixture(t)
	target := f.Write("real.txt", "keep\n")
	require.NoError(t, os.Symlink("real.txt", filepath.Join(f.Root, "link")))
	r := f.OK("delete_file", m{"path": "link"})
	require.Contains(t, r.Output, "symlink")
	require.False(t, f.Exists(filepath.Join(f.Root, "link")))
	require.Equal(t, "keep\n", f.Read("real.txt"))
	require.True(t, f.Exists(target))

	// a link to / is refused (it resolves outside), and nothing is traversed
	require.NoError(t, os.Symlink("/", filepath.Join(f.Root, "root")))
	f.Fail("delete_file", m{"path": "root/"}, tools.CategorySecurity)
	require.True(t, f.Exists(filepath.Join(f.Root, "root")))
}

func TestMoveAndCopyFile(t *testing.T) {
	f := newFixture(t)
	p := f.Write("a.txt", "A\n")
	require.NoError(t, os.Chmod(p, 0o750))
	f.OK("read_file", m{"path": "a.txt"})
	r := f.OK("move_file", m{"source": "a.txt", "destination": "sub/b.txt"})
	require.Equal(t, "Moved a.txt to sub/b.txt", r.Output)
	require.Equal(t, []string{"a.txt", "sub/b.txt"}, r.Meta.Files)
	require.False(t, f.Exists(p))
	require.Equal(t, "A\n", f.Read("sub/b.txt"))
	fi, _ := os.Stat(filepath.Join(f.Root, "sub/b.txt"))
	require.Equal(t, os.FileMode(0o750), fi.Mode().Perm())
	cps := f.Cps.Entries()
	require.Len(t, cps, 2)
	require.Equal(t, "A\n", string(cps[0].Old))
	require.False(t, cps[1].Existed)
	// the read carried over: the moved file can be edited without re-reading
	f.OK("edit_file", m{"path": "sub/b.txt", "old_string": "A", "new_string": "B"})

	f.OK("copy_file", m{"source": "sub/b.txt", "destination": "c.txt"})
	require.Equal(t, "B\n", f.Read("c.txt"))
	f.Fail("edit_file", m{"path": "c.txt", "old_string": "B", "new_string": "C"}, tools.CategoryValidation) // copy not read

	require.NoError(t, os.Mkdir(filepath.Join(f.Root, "into"), 0o755))
	r = f.OK("copy_file", m{"source": "c.txt", "destination": "into"})
	require.Equal(t, "into/c.txt", r.Meta.Path)

	f.Fail("move_file", m{"source": "c.txt", "destination": "sub/b.txt"}, tools.CategoryValidation) // exists
	f.Fail("copy_file", m{"source": "c.txt", "destination": "c.txt"}, tools.CategoryValidation)
	f.Fail("move_file", m{"source": "nope", "destination": "x"}, tools.CategoryNotFound)
	f.Fail("copy_file", m{"source": "into", "destination": "x"}, tools.CategoryValidation)
	f.Fail("move_file", m{"source": "into", "destination": "x"}, tools.CategoryValidation)
	require.Equal(t, "B\n", f.Read("sub/b.txt"))
}

func TestStampSameContent(t *testing.T) {
	a := tools.StampOf([]byte("x"), time.Unix(1, 0))
	require.True(t, a.SameContent(tools.StampOf([]byte("x"), time.Unix(2, 0))))
	require.False(t, a.SameContent(tools.StampOf([]byte("y"), time.Unix(1, 0))))
}
