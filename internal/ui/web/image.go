package web

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/images"
)

// ImageRequest is the body of POST /api/image: the prompt (at most
// images.MaxPromptBytes bytes), Width and Height in pixels
// (images.MinSize..MaxSize, 0: 1024), Seed for a reproducible image
// (Pollinations), SaveAs a workspace path to save the image to (confined
// like every web path; the image type's extension is added when it has
// none) and Overwrite to replace an existing file.
type ImageRequest struct {
	Prompt    string `json:"prompt"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
	Seed      *int64 `json:"seed,omitempty"`
	SaveAs    string `json:"save_as,omitempty"`
	Overwrite bool   `json:"overwrite,omitempty"`
}

// ImageResponse is the answer of POST /api/image: the image's MIME type
// and bytes (base64, standard alphabet, exactly as the service sent
// them), its size, the provider and model, and where it was saved
// (workspace-relative path, with a note when the extension does not match
// the type).
type ImageResponse struct {
	MIME     string `json:"mime"`
	Data     []byte `json:"data"`
	Bytes    int    `json:"bytes"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Saved    string `json:"saved,omitempty"`
	Note     string `json:"note,omitempty"`
}

// handleImage generates an image with the configured image service
// (image_provider, image_model, image_api_key, image_base_url): POST
// /api/image. 400 for a bad request, 403 when save_as is outside the
// workspace, 409 when it exists (without overwrite), 502 when the image
// service fails.
func (s runtimeAPI) handleImage(w http.ResponseWriter, r *http.Request) {
	var req ImageRequest
	if !s.decodeBody(w, r, &req) {
		return
	}
	if err := checkImageRequest(req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	rt := s.Runtime()
	var files *app.Files
	if req.SaveAs != "" {
		// Refuse a bad path before spending a generation on it.
		ws, err := rt.Files(true)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		abs, err := ws.Resolve(req.SaveAs)
		if err != nil {
			writeError(w, http.StatusForbidden, "save_as refused: "+err.Error())
			return
		}
		if err := ws.CheckWrite(req.SaveAs, abs); err != nil {
			writeError(w, http.StatusForbidden, "save_as refused: "+err.Error())
			return
		}
		files = ws
	}
	gen := s.opts.Images
	if gen == nil {
		g, err := rt.ImageGenerator()
		if err != nil {
			writeError(w, http.StatusInternalServerError, "image generation is not configured correctly: "+err.Error())
			return
		}
		gen = g
	}
	img, err := gen.Generate(r.Context(), images.Request{Prompt: req.Prompt, Width: req.Width, Height: req.Height, Seed: req.Seed})
	if err != nil {
		writeError(w, http.StatusBadGateway, err.Error())
		return
	}
	out := ImageResponse{MIME: img.MIME, Data: img.Data, Bytes: len(img.Data), Width: img.Width, Height: img.Height, Provider: img.Provider, Model: img.Model}
	if files != nil {
		saved, err := files.SaveImage(r.Context(), req.SaveAs, img, req.Overwrite)
		switch {
		case errors.Is(err, images.ErrRefused):
			writeError(w, http.StatusForbidden, err.Error())
			return
		case errors.Is(err, images.ErrExists):
			writeError(w, http.StatusConflict, err.Error())
			return
		case err != nil:
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		out.Saved, out.Note = filepath.ToSlash(saved.Rel), saved.Note
	}
	writeJSON(w, http.StatusOK, out)
}

// checkImageRequest refuses what the image service would refuse, so it
// answers 400 without a request to the service.
func checkImageRequest(req ImageRequest) error {
	switch {
	case strings.TrimSpace(req.Prompt) == "":
		return errors.New(`the prompt is empty: send {"prompt": "what the image shows"}`)
	case len(req.Prompt) > images.MaxPromptBytes:
		return fmt.Errorf("the prompt is %d bytes: keep it under %d", len(req.Prompt), images.MaxPromptBytes)
	}
	for _, v := range []int{req.Width, req.Height} {
		if v != 0 && (v < images.MinSize || v > images.MaxSize) {
			return fmt.Errorf("width and height must be %d..%d pixels (or left out for %d), not %d", images.MinSize, images.MaxSize, images.DefaultSize, v)
		}
	}
	return nil
}
