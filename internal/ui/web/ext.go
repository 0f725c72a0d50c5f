package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/zelvior/aidex/internal/config"
)

// Ralph is what the Ralph endpoints need of the task loop. Bodies and
// results are JSON; their shapes belong to the Ralph implementation:
//
//	GET  /api/ralph       → Tasks
//	POST /api/ralph/add   → Add(body)   (a task to queue)
//	POST /api/ralph/clear → Clear       (remove finished and queued tasks)
//	POST /api/ralph/stop  → Stop        (stop the running loop)
//	POST /api/ralph/run   → Run(body)   (start the loop; returns at once)
//
// Errors wrapping ErrBadRequest answer 400, others 500. With no Ralph
// configured the endpoints answer 501.
type Ralph interface {
	Tasks(ctx context.Context) (any, error)
	Add(ctx context.Context, body json.RawMessage) (any, error)
	Clear(ctx context.Context) (any, error)
	Stop(ctx context.Context) (any, error)
	Run(ctx context.Context, body json.RawMessage) (any, error)
}

// ImageGenerator makes an image for POST /api/image. body is the request
// as sent ({"prompt": ..., "provider": ..., "model": ..., "size": ...});
// the result is encoded as the JSON answer. Errors wrapping ErrBadRequest
// answer 400, others 502. With none configured the endpoint answers 501.
type ImageGenerator interface {
	Generate(ctx context.Context, body json.RawMessage) (any, error)
}

// ErrBadRequest marks errors of Ralph and ImageGenerator caused by the
// request (answered 400).
var ErrBadRequest = errors.New("bad request")

func (s *Server) handleRalphList(w http.ResponseWriter, r *http.Request) {
	if s.opts.Ralph == nil {
		writeError(w, http.StatusNotImplemented, "the Ralph task loop is not available in this build of aidex web")
		return
	}
	v, err := s.opts.Ralph.Tasks(r.Context())
	answerExt(w, v, err, http.StatusInternalServerError)
}

func (s *Server) handleRalphOp(w http.ResponseWriter, r *http.Request) {
	var body json.RawMessage
	if !decodeBody(w, r, &body) {
		return
	}
	op := r.PathValue("op")
	switch op {
	case "add", "clear", "stop", "run":
	default:
		writeError(w, http.StatusNotFound, "no such Ralph operation: use add, clear, stop or run")
		return
	}
	if s.opts.Ralph == nil {
		writeError(w, http.StatusNotImplemented, "the Ralph task loop is not available in this build of aidex web")
		return
	}
	var v any
	var err error
	switch op {
	case "add":
		v, err = s.opts.Ralph.Add(r.Context(), body)
	case "clear":
		v, err = s.opts.Ralph.Clear(r.Context())
	case "stop":
		v, err = s.opts.Ralph.Stop(r.Context())
	case "run":
		v, err = s.opts.Ralph.Run(r.Context(), body)
	}
	answerExt(w, v, err, http.StatusInternalServerError)
}

func answerExt(w http.ResponseWriter, v any, err error, failStatus int) {
	switch {
	case errors.Is(err, ErrBadRequest):
		writeError(w, http.StatusBadRequest, err.Error())
	case err != nil:
		writeError(w, failStatus, err.Error())
	default:
		writeJSON(w, http.StatusOK, v)
	}
}

// ImageProvider is a known image-generation provider in GET
// /api/image-providers: its name, default model, endpoint, whether it
// needs a key, and where to get one.
type ImageProvider struct {
	Name        string `json:"name"`
	Model       string `json:"model"`
	BaseURL     string `json:"base_url"`
	RequiresKey bool   `json:"requires_key"`
	SignupURL   string `json:"signup_url,omitempty"`
	Notes       string `json:"notes,omitempty"`
}

// imageProviders is the built-in list of image providers (endpoints as
// documented by each provider).
func imageProviders() []ImageProvider {
	return []ImageProvider{
		{Name: "pollinations", Model: "flux", BaseURL: "https://image.pollinations.ai", Notes: "no signup needed"},
		{Name: "openai", Model: "gpt-image-1", BaseURL: "https://api.openai.com/v1", RequiresKey: true, SignupURL: "https://platform.openai.com/api-keys"},
		{Name: "together", Model: "black-forest-labs/FLUX.1-schnell-Free", BaseURL: "https://api.together.xyz/v1", RequiresKey: true, SignupURL: "https://api.together.ai/settings/api-keys", Notes: "free FLUX.1 schnell model"},
	}
}

// handleImageProviders lists image providers and the configured one (key
// never shown, only whether it is set): GET /api/image-providers.
func (s *Server) handleImageProviders(w http.ResponseWriter, r *http.Request) {
	c := s.Runtime().Config
	key := ""
	if c.ImageAPIKey != "" {
		key = config.Mask(c.ImageAPIKey)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"providers": imageProviders(),
		"configured": map[string]any{"provider": c.ImageProvider, "model": c.ImageModel, "base_url": c.ImageBaseURL,
			"api_key_set": c.ImageAPIKey != "", "api_key": key},
		"available": s.opts.Images != nil,
	})
}

// handleImage generates an image: POST /api/image {"prompt": ...}.
func (s *Server) handleImage(w http.ResponseWriter, r *http.Request) {
	var body json.RawMessage
	if !decodeBody(w, r, &body) {
		return
	}
	if s.opts.Images == nil {
		writeError(w, http.StatusNotImplemented, "image generation is not available in this build of aidex web")
		return
	}
	v, err := s.opts.Images.Generate(r.Context(), body)
	answerExt(w, v, err, http.StatusBadGateway)
}
