package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/llm"
)

// maxUploadBytes caps one file of POST /api/upload: 7 MiB, whose base64
// stays within the 10 MiB request body cap (MaxBodyBytes).
const maxUploadBytes = 7 << 20

// UploadRequest is the body of POST /api/upload: the file's name, its
// bytes in base64, and the session it belongs to ("" for the page's
// current one).
type UploadRequest struct {
	Name      string `json:"name"`
	Data      string `json:"data"`
	SessionID string `json:"session_id,omitempty"`
}

// UploadResult answers POST /api/upload: the upload's ID (to name in a
// chat message's attachments as {"upload": ID}), the file's name, its
// detected kind (image, pdf, docx, xlsx, csv, pptx, notebook, html, text),
// size in bytes, and notes (what was cut, or that the model cannot see
// images).
type UploadResult struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Kind  string   `json:"kind"`
	Size  int      `json:"size"`
	Notes []string `json:"notes,omitempty"`
}

// uploads maps upload IDs to their files under the state directory.
type uploads struct {
	mu    sync.Mutex
	files map[string]upload
}

type upload struct{ path, name string }

func (u *uploads) put(id string, f upload) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.files == nil {
		u.files = map[string]upload{}
	}
	u.files[id] = f
}

func (u *uploads) get(id string) (upload, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	f, ok := u.files[id]
	return f, ok
}

// cleanName is a file name safe to store and show: its base name with
// control characters and separators replaced ("attachment" when empty).
func cleanName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' {
			return '_'
		}
		return r
	}, filepath.Base(strings.ReplaceAll(name, "\\", "/")))
	if name == "" || name == "." || name == ".." {
		return "attachment"
	}
	return name
}

// handleUpload stores a file dropped or picked in the page in the
// session's attachment folder under the state directory
// (STATE/attachments/SESSION/ID/NAME; never in the workspace), after the
// loader accepted it, and returns its ID for the chat message.
func (s *Server) handleUpload(w http.ResponseWriter, r *http.Request) {
	var req UploadRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	name := cleanName(req.Name)
	data, err := base64.StdEncoding.DecodeString(req.Data)
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("upload %s: data is not base64: %v", name, err))
		return
	case len(data) == 0:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("upload %s: the file is empty", name))
		return
	case len(data) > maxUploadBytes:
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("upload %s is %d bytes: the limit is %d MiB per file", name, len(data), maxUploadBytes>>20))
		return
	}
	att, err := s.Runtime().AttachData(r.Context(), name, data)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	id, path, err := s.storeUpload(req.SessionID, name, data)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.uploads.put(id, upload{path: path, name: name})
	writeJSON(w, http.StatusOK, UploadResult{ID: id, Name: name, Kind: string(att.Kind), Size: len(data), Notes: att.Notes})
}

// storeUpload writes data to STATE/attachments/SESSION/ID/NAME (SESSION
// is "new" before the page's first chat), private to the user.
func (s *Server) storeUpload(sessionID, name string, data []byte) (string, string, error) {
	if sessionID == "" {
		s.mu.Lock()
		sessionID = s.current
		s.mu.Unlock()
	}
	if sessionID == "" || sessionID != cleanName(sessionID) {
		sessionID = "new"
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("upload: %w", err)
	}
	id := hex.EncodeToString(b[:])
	dir := filepath.Join(s.Runtime().Config.Paths.StateDir, "attachments", sessionID, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("upload: %w", err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", "", fmt.Errorf("upload: %w", err)
	}
	return id, path, nil
}

// uploadParts is the message parts of an uploaded file (its text in a
// <file> part, image parts for a model that sees them).
func (s *Server) uploadParts(ctx context.Context, id string) ([]llm.Part, error) {
	u, ok := s.uploads.get(id)
	if !ok {
		return nil, fmt.Errorf("no upload %q: upload the file again (POST /api/upload)", id)
	}
	data, err := os.ReadFile(u.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("upload %s (%s) was removed: upload the file again", id, u.name)
		}
		return nil, fmt.Errorf("upload %s: %w", u.name, err)
	}
	att, err := s.Runtime().AttachData(ctx, u.name, data)
	if err != nil {
		return nil, err
	}
	return att.Parts, nil
}

// adoptUploads moves the uploads a message names that were stored before
// the page had a session (STATE/attachments/new/ID) into the session's
// folder. A failed move leaves the file where it is (it is still found).
func (s *Server) adoptUploads(sessionID string, atts []Attachment) {
	if sessionID != cleanName(sessionID) {
		return
	}
	for _, a := range atts {
		u, ok := s.uploads.get(a.Upload)
		if !ok {
			continue
		}
		dir := filepath.Dir(u.path)
		if filepath.Base(filepath.Dir(dir)) != "new" {
			continue
		}
		dst := filepath.Join(filepath.Dir(filepath.Dir(dir)), sessionID, filepath.Base(dir))
		if os.MkdirAll(filepath.Dir(dst), 0o700) != nil || os.Rename(dir, dst) != nil {
			continue
		}
		s.uploads.put(a.Upload, upload{path: filepath.Join(dst, u.name), name: u.name})
	}
}
