package web

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/atomicfile"
)

// filesAPI serves the workspace's files (/fs/...).
type filesAPI struct{ *Server }

// maxReadBytes caps GET /api/fs/read: 8 MiB (the write side is capped by
// the 10 MiB body limit).
const maxReadBytes = 8 << 20

// maxListEntries caps one directory listing.
const maxListEntries = 5000

// resolvePath confines a path parameter to the workspace (symlinks
// resolved component by component; "../", absolute paths and links that
// leave it are refused). It writes 403 (or 400 for an empty or invalid
// path) and returns false when refused.
func (s filesAPI) resolvePath(w http.ResponseWriter, p string) (string, *app.Files, bool) {
	ws, err := s.Runtime().Files(true)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return "", nil, false
	}
	abs, err := ws.Resolve(p)
	if err != nil {
		status := http.StatusForbidden
		if errors.Is(err, app.ErrInvalidPath) {
			status = http.StatusBadRequest
		}
		writeError(w, status, err.Error())
		return "", nil, false
	}
	return abs, ws, true
}

// FileEntry is one directory entry in GET /api/fs/list: the name, the
// workspace-relative slash path, whether it is a directory or a symlink,
// and the size in bytes.
type FileEntry struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Dir     bool   `json:"dir"`
	Symlink bool   `json:"symlink,omitempty"`
	Size    int64  `json:"size"`
}

// handleFSList lists a directory: GET /api/fs/list?path=REL (default the
// workspace root). Directories first, then by name; .git is left out.
func (s filesAPI) handleFSList(w http.ResponseWriter, r *http.Request) {
	abs, ws, ok := s.filesAPI.resolvePath(w, r.URL.Query().Get("path"))
	if !ok {
		return
	}
	des, err := os.ReadDir(abs)
	if err != nil {
		fsError(w, err)
		return
	}
	out := []FileEntry{}
	for _, de := range des {
		if de.Name() == ".git" {
			continue
		}
		if len(out) >= maxListEntries {
			break
		}
		e := FileEntry{Name: de.Name(), Path: ws.Rel(filepath.Join(abs, de.Name())), Dir: de.IsDir(), Symlink: de.Type()&fs.ModeSymlink != 0}
		if info, err := de.Info(); err == nil {
			e.Size = info.Size()
		}
		if e.Symlink {
			if st, err := os.Stat(filepath.Join(abs, de.Name())); err == nil {
				e.Dir = st.IsDir()
			}
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b FileEntry) int {
		if a.Dir != b.Dir {
			if a.Dir {
				return -1
			}
			return 1
		}
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	writeJSON(w, http.StatusOK, map[string]any{"path": ws.Rel(abs), "entries": out})
}

// handleFSRead returns a file's raw bytes (never the numbered display
// format of read_file): GET /api/fs/read?path=REL, as
// text/plain; charset=utf-8, at most 8 MiB (413 beyond).
func (s filesAPI) handleFSRead(w http.ResponseWriter, r *http.Request) {
	abs, _, ok := s.filesAPI.resolvePath(w, r.URL.Query().Get("path"))
	if !ok {
		return
	}
	// Check the type before opening: opening a FIFO would block the request.
	if st, err := os.Stat(abs); err != nil {
		fsError(w, err)
		return
	} else if !st.Mode().IsRegular() {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%s is not a regular file", r.URL.Query().Get("path")))
		return
	}
	f, err := os.Open(abs)
	if err != nil {
		fsError(w, err)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fsError(w, err)
		return
	}
	if !st.Mode().IsRegular() {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%s is not a regular file", r.URL.Query().Get("path")))
		return
	}
	if st.Size() > maxReadBytes {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("%s is %d bytes: the web editor opens files up to %d MiB", r.URL.Query().Get("path"), st.Size(), maxReadBytes>>20))
		return
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReadBytes+1))
	if err != nil {
		fsError(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Disposition", "attachment")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

// WriteRequest is the body of POST /api/fs/write: the workspace-relative
// path and the new content, as text (Content) or, for bytes that are not
// UTF-8, base64 (ContentBase64).
type WriteRequest struct {
	Path          string  `json:"path"`
	Content       *string `json:"content,omitempty"`
	ContentBase64 *string `json:"content_base64,omitempty"`
}

// handleFSWrite writes a file atomically (temp file, fsync, rename),
// keeping its mode, creating missing folders inside the workspace:
// POST /api/fs/write {"path": REL, "content": TEXT}. The bytes written are
// exactly the content's.
func (s filesAPI) handleFSWrite(w http.ResponseWriter, r *http.Request) {
	var req WriteRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	var data []byte
	switch {
	case req.Content != nil && req.ContentBase64 != nil:
		writeError(w, http.StatusBadRequest, "send either content or content_base64, not both")
		return
	case req.Content != nil:
		data = []byte(*req.Content)
	case req.ContentBase64 != nil:
		var err error
		if data, err = base64.StdEncoding.DecodeString(*req.ContentBase64); err != nil {
			writeError(w, http.StatusBadRequest, "content_base64 is not base64: "+err.Error())
			return
		}
	default:
		writeError(w, http.StatusBadRequest, `no content: send {"path": "...", "content": "..."}`)
		return
	}
	if strings.TrimSpace(req.Path) == "" {
		writeError(w, http.StatusBadRequest, "path is empty")
		return
	}
	abs, ws, ok := s.filesAPI.resolvePath(w, req.Path)
	if !ok {
		return
	}
	if err := ws.CheckWrite(req.Path, abs); err != nil {
		writeError(w, http.StatusForbidden, err.Error())
		return
	}
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(abs); err == nil {
		if !st.Mode().IsRegular() {
			writeError(w, http.StatusBadRequest, req.Path+" is not a regular file")
			return
		}
		perm = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		fsError(w, err)
		return
	}
	if err := atomicfile.WriteFile(abs, data, perm); err != nil {
		fsError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "path": ws.Rel(abs), "bytes": len(data)})
}

func fsError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, fs.ErrPermission):
		writeError(w, http.StatusForbidden, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}
