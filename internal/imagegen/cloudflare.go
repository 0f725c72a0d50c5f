package imagegen

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// cloudflareRequest is the input of a Workers AI text-to-image model.
// FLUX.1 schnell takes only prompt (and steps); the Stable Diffusion
// models take width, height and seed too.
type cloudflareRequest struct {
	Prompt string `json:"prompt"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	Seed   *int64 `json:"seed,omitempty"`
}

// cloudflareResponse is Workers AI's JSON answer: the image as base64 in
// result.image (FLUX), or errors.
type cloudflareResponse struct {
	Result struct {
		Image string `json:"image"`
	} `json:"result"`
	Success bool `json:"success"`
	Errors  []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

// cloudflare runs the model on Workers AI: POST
// {base}/accounts/{account}/ai/run/{model}. The answer is the image bytes
// (Stable Diffusion models) or JSON with result.image in base64 (FLUX).
func (g *Generator) cloudflare(ctx context.Context, r Request) (Image, error) {
	in := cloudflareRequest{Prompt: r.Prompt}
	if !strings.Contains(r.Model, "flux") {
		in.Width, in.Height, in.Seed = r.Width, r.Height, r.Seed
	}
	body, _ := json.Marshal(in)
	u := g.base + "/accounts/" + g.account + "/ai/run/" + strings.TrimPrefix(r.Model, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return Image{}, fmt.Errorf("image request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	g.auth(req)
	resp, err := g.hc.Do(req)
	if err != nil {
		return Image{}, fmt.Errorf("image service %s: %w", req.URL.Host, err)
	}
	defer resp.Body.Close()
	raw, err := readLimited(resp.Body, MaxImageBytes*4/3+64<<10)
	if err != nil {
		return Image{}, fmt.Errorf("image service %s: %w", req.URL.Host, err)
	}
	if resp.StatusCode/100 != 2 {
		return Image{}, httpError(resp, raw)
	}
	if !strings.Contains(ctype(resp), "json") {
		mime, err := CheckImage(raw)
		if err != nil {
			return Image{}, fmt.Errorf("image service %s: %w", req.URL.Host, err)
		}
		return Image{Data: raw, MIME: mime}, nil
	}
	return decodeCloudflare(req.URL.Host, raw)
}

// decodeCloudflare returns the image of a Workers AI JSON answer.
func decodeCloudflare(host string, raw []byte) (Image, error) {
	var out cloudflareResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return Image{}, fmt.Errorf("image service %s answered JSON that is not a Workers AI response: %s", host, snippet(raw))
	}
	if out.Result.Image == "" {
		msg := "no image in result.image"
		if len(out.Errors) > 0 {
			msg = out.Errors[0].Message
		}
		return Image{}, fmt.Errorf("image service %s returned no image: %s", host, msg)
	}
	data, err := base64.StdEncoding.DecodeString(out.Result.Image)
	if err != nil {
		return Image{}, fmt.Errorf("image service %s: result.image is not valid base64: %w", host, err)
	}
	mime, err := CheckImage(data)
	if err != nil {
		return Image{}, fmt.Errorf("image service %s: %w", host, err)
	}
	return Image{Data: data, MIME: mime}, nil
}
