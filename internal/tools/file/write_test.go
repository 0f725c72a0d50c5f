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
	r := f.ok("write_file", m{"path": "sub/dir/new.txt", "content": "hello\nworld\n"})
	require.Equal(t, "Created sub/dir/new.txt (2 lines, 12 bytes)", r.Output)
	require.Equal(t, "hello\nworld\n", f.read("sub/dir/new.txt"))
	require.Equal(t, "sub/dir/new.txt", r.Meta.Path)
	require.Contains(t, r.Meta.Diff, "+++ b/sub/dir/new.txt")
	require.Contains(t, r.Meta.Diff, "+hello")
	cps := f.cps.Entries()
	require.Len(t, cps, 1)
	require.Equal(t, filepath.Join(f.root, "sub/dir/new.txt"), cps[0].Path)
	require.False(t, cps[0].Existed)
	// the new file counts as read: it can be overwritten straight away
	f.ok("write_file", m{"path": "sub/dir/new.txt", "content": "bye\n"})
	require.Equal(t, "bye\n", f.read("sub/dir/new.txt"))
	require.Equal(t, "hello\nworld\n", string(f.cps.Entries()[1].Old))
	require.True(t, f.cps.Entries()[1].Existed)
}

func TestWriteFileReadBeforeWrite(t *testing.T) {
	f := newFixture(t)
	p := f.write("a.txt", "original\n")
	r := f.fail("write_file", m{"path": "a.txt", "content": "new\n"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "has not been read in this session: call read_file on it first")
	require.Equal(t, "original\n", f.read("a.txt"))

	f.ok("read_file", m{"path": "a.txt"})
	// the user edits the file in an editor after the model read it
	require.NoError(t, os.WriteFile(p, []byte("user change\n"), 0o644))
	r = f.fail("write_file", m{"path": "a.txt", "content": "new\n"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "changed on disk since you last read it")
	require.Equal(t, "user change\n", f.read("a.txt"), "the user's change is preserved")
	require.Empty(t, f.cps.Entries())

	f.ok("read_file", m{"path": "a.txt"})
	f.ok("write_file", m{"path": "a.txt", "content": "new\n"})
	require.Equal(t, "new\n", f.read("a.txt"))

	// same size and mtime forced back: the hash still notices the change
	fi, _ := os.Stat(p)
	require.NoError(t, os.WriteFile(p, []byte("NEW\n"), 0o644))
	require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	f.fail("write_file", m{"path": "a.txt", "content": "x\n"}, tools.CategoryValidation)
}

func TestSkipReadCheck(t *testing.T) {
	f := newFixture(t)
	f.env.SkipReadCheck = true
	f.write("a.txt", "original\n")
	f.ok("write_file", m{"path": "a.txt", "content": "new\n"})
	require.Equal(t, "new\n", f.read("a.txt"))
}

func TestWriteFileKeepsFormat(t *testing.T) {
	f := newFixture(t)
	p := f.write("crlf.txt", "a\r\nb\r\n")
	require.NoError(t, os.Chmod(p, 0o755))
	f.ok("read_file", m{"path": "crlf.txt"})
	r := f.ok("write_file", m{"path": "crlf.txt", "content": "a\nc\n"})
	require.Equal(t, "a\r\nc\r\n", f.read("crlf.txt"), "CRLF kept")
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "mode kept")
	require.Contains(t, r.Meta.Diff, "-b\r")

	f.write("bom.txt", "\uFEFFx\n")
	f.ok("read_file", m{"path": "bom.txt"})
	f.ok("write_file", m{"path": "bom.txt", "content": "y\n"})
	require.Equal(t, "\uFEFFy\n", f.read("bom.txt"), "BOM kept")

	r = f.fail("write_file", m{"path": "bom.txt", "content": "y\n"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "identical")
}

func TestWriteFileRefusals(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, os.Mkdir(filepath.Join(f.root, "d"), 0o755))
	f.write("bin.dat", "\x00\x01")
	f.fail("write_file", m{"path": "d", "content": "x"}, tools.CategoryValidation)
	f.fail("write_file", m{"path": "bin.dat", "content": "x"}, tools.CategoryValidation)
	big := strings.Repeat("x", tools.MaxWriteBytes+1)
	r := f.fail("write_file", m{"path": "big.txt", "content": big}, tools.CategoryValidation)
	require.Contains(t, r.Error, "16 MiB")
	require.False(t, f.exists(filepath.Join(f.root, "big.txt")))
}

func TestAppendFile(t *testing.T) {
	f := newFixture(t)
	f.ok("append_file", m{"path": "log.txt", "content": "one\n"})
	require.Equal(t, "one\n", f.read("log.txt"))
	f.ok("append_file", m{"path": "log.txt", "content": "two\n"})
	require.Equal(t, "one\ntwo\n", f.read("log.txt"))

	f.write("nofinal.txt", "a\r\nb")
	f.fail("append_file", m{"path": "nofinal.txt", "content": "c"}, tools.CategoryValidation) // not read
	f.ok("read_file", m{"path": "nofinal.txt"})
	r := f.ok("append_file", m{"path": "nofinal.txt", "content": "c\nd"})
	require.Equal(t, "a\r\nb\r\nc\r\nd", f.read("nofinal.txt"))
	require.NotEmpty(t, r.Meta.Diff)
	f.fail("append_file", m{"path": "nofinal.txt", "content": ""}, tools.CategoryValidation)
}

func TestCreateDirectory(t *testing.T) {
	f := newFixture(t)
	r := f.ok("create_directory", m{"path": "a/b/c"})
	require.Equal(t, "Created directory a/b/c", r.Output)
	fi, err := os.Stat(filepath.Join(f.root, "a/b/c"))
	require.NoError(t, err)
	require.True(t, fi.IsDir())
	r = f.ok("create_directory", m{"path": "a/b"})
	require.Contains(t, r.Output, "already exists")
	f.write("file", "x")
	f.fail("create_directory", m{"path": "file"}, tools.CategoryValidation)
}

func TestDeleteFile(t *testing.T) {
	f := newFixture(t)
	p := f.write("a.txt", "content\n")
	f.fail("delete_file", m{"path": "a.txt"}, tools.CategoryValidation) // not read
	f.ok("read_file", m{"path": "a.txt"})
	r := f.ok("delete_file", m{"path": "a.txt"})
	require.Contains(t, r.Output, "Deleted a.txt")
	require.False(t, f.exists(p))
	require.Contains(t, r.Meta.Diff, "-content")
	cps := f.cps.Entries()
	require.Len(t, cps, 1)
	require.Equal(t, "content\n", string(cps[0].Old))
	require.True(t, cps[0].Existed)

	f.fail("delete_file", m{"path": "a.txt"}, tools.CategoryNotFound)

	// binary files cannot be read, so they need no read; still checkpointed
	f.write("b.bin", "\x00\x01")
	f.ok("delete_file", m{"path": "b.bin"})
	require.Equal(t, "\x00\x01", string(f.cps.Entries()[1].Old))

	require.NoError(t, os.MkdirAll(filepath.Join(f.root, "empty"), 0o755))
	f.ok("delete_file", m{"path": "empty/"})
	f.write("full/x.txt", "x")
	r = f.fail("delete_file", m{"path": "full"}, tools.CategoryValidation)
	require.Contains(t, r.Error, "not empty")
	r = f.fail("delete_file", m{"path": "."}, tools.CategoryValidation)
	require.Contains(t, r.Error, "workspace root")
}

func TestDeleteSymlinkRemovesOnlyTheLink(t *testing.T) {
	f := newFixture(t)
	target := f.write("real.txt", "keep\n")
	require.NoError(t, os.Symlink("real.txt", filepath.Join(f.root, "link")))
	r := f.ok("delete_file", m{"path": "link"})
	require.Contains(t, r.Output, "symlink")
	require.False(t, f.exists(filepath.Join(f.root, "link")))
	require.Equal(t, "keep\n", f.read("real.txt"))
	require.True(t, f.exists(target))

	// a link to / is refused (it resolves outside), and nothing is traversed
	require.NoError(t, os.Symlink("/", filepath.Join(f.root, "root")))
	f.fail("delete_file", m{"path": "root/"}, tools.CategorySecurity)
	require.True(t, f.exists(filepath.Join(f.root, "root")))
}

func TestMoveAndCopyFile(t *testing.T) {
	f := newFixture(t)
	p := f.write("a.txt", "A\n")
	require.NoError(t, os.Chmod(p, 0o750))
	f.ok("read_file", m{"path": "a.txt"})
	r := f.ok("move_file", m{"source": "a.txt", "destination": "sub/b.txt"})
	require.Equal(t, "Moved a.txt to sub/b.txt", r.Output)
	require.Equal(t, []string{"a.txt", "sub/b.txt"}, r.Meta.Files)
	require.False(t, f.exists(p))
	require.Equal(t, "A\n", f.read("sub/b.txt"))
	fi, _ := os.Stat(filepath.Join(f.root, "sub/b.txt"))
	require.Equal(t, os.FileMode(0o750), fi.Mode().Perm())
	cps := f.cps.Entries()
	require.Len(t, cps, 2)
	require.Equal(t, "A\n", string(cps[0].Old))
	require.False(t, cps[1].Existed)
	// the read carried over: the moved file can be edited without re-reading
	f.ok("edit_file", m{"path": "sub/b.txt", "old_string": "A", "new_string": "B"})

	f.ok("copy_file", m{"source": "sub/b.txt", "destination": "c.txt"})
	require.Equal(t, "B\n", f.read("c.txt"))
	f.fail("edit_file", m{"path": "c.txt", "old_string": "B", "new_string": "C"}, tools.CategoryValidation) // copy not read

	require.NoError(t, os.Mkdir(filepath.Join(f.root, "into"), 0o755))
	r = f.ok("copy_file", m{"source": "c.txt", "destination": "into"})
	require.Equal(t, "into/c.txt", r.Meta.Path)

	f.fail("move_file", m{"source": "c.txt", "destination": "sub/b.txt"}, tools.CategoryValidation) // exists
	f.fail("copy_file", m{"source": "c.txt", "destination": "c.txt"}, tools.CategoryValidation)
	f.fail("move_file", m{"source": "nope", "destination": "x"}, tools.CategoryNotFound)
	f.fail("copy_file", m{"source": "into", "destination": "x"}, tools.CategoryValidation)
	f.fail("move_file", m{"source": "into", "destination": "x"}, tools.CategoryValidation)
	require.Equal(t, "B\n", f.read("sub/b.txt"))
}

func TestStampSameContent(t *testing.T) {
	a := tools.StampOf([]byte("x"), time.Unix(1, 0))
	require.True(t, a.SameContent(tools.StampOf([]byte("x"), time.Unix(2, 0))))
	require.False(t, a.SameContent(tools.StampOf([]byte("y"), time.Unix(1, 0))))
}
