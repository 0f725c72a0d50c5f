package image

import (
	"context"
	"errors"
	"fmt"

	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type generateArgs struct {
	Prompt     string `json:"prompt" jsonschema:"What the image shows, in detail"`
	OutputPath string `json:"output_path" jsonschema:"Workspace file to save, e.g. assets/logo.png" tool:"path"`
	Width      int    `json:"width,omitempty" jsonschema:"Pixels" default:"1024"`
	Height     int    `json:"height,omitempty" jsonschema:"Pixels" default:"1024"`
	Seed       *int64 `json:"seed,omitempty" jsonschema:"Seed for a reproducible image (omit for random)"`
	Overwrite  bool   `json:"overwrite,omitempty" jsonschema:"Replace an existing file"`
}

// generateImageDef is generate_image: an image from a prompt, saved into
// the workspace.
func generateImageDef(g *imagegen.Generator) tools.Def {
	return tools.Define(tools.Spec{Name: "generate_image", Kind: kind.Write, Aliases: []string{"create_image", "image_generation", "text_to_image"},
		Description: "Generate an image from a text prompt and save it into the workspace (PNG/JPEG/WebP as the service returns)."},
		func(ctx context.Context, env *tools.Env, a generateArgs) tools.Result {
			return generateImage(ctx, g, env, a)
		})
}

func generateImage(ctx context.Context, g *imagegen.Generator, env *tools.Env, a generateArgs) tools.Result {
	if g == nil {
		return tools.Failf(tools.CategoryInternal, "image generation is not configured (internal error: no generator)")
	}
	var ws imagegen.Workspace
	var cp imagegen.Checkpointer
	if env != nil && env.Workspace != nil {
		// Refuse a bad path before spending a generation on it.
		if _, err := env.Workspace.Resolve(a.OutputPath); err != nil {
			return tools.Failf(tools.CategorySecurity, "output_path refused: %v", err)
		}
		ws, cp = env.Workspace, env.Checkpoints
	}
	img, err := g.Generate(ctx, imagegen.Request{Prompt: a.Prompt, Width: a.Width, Height: a.Height, Seed: a.Seed})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Failf(tools.CategoryExecution, "generate_image cancelled: %v", ctx.Err())
		}
		return tools.Failf(tools.CategoryExecution, "generate_image: %v", err)
	}
	s, err := imagegen.Save(ctx, ws, cp, a.OutputPath, img, a.Overwrite)
	switch {
	case errors.Is(err, imagegen.ErrRefused):
		return tools.Failf(tools.CategorySecurity, "generate_image: %v", err)
	case errors.Is(err, imagegen.ErrExists):
		return tools.Failf(tools.CategoryValidation, "generate_image: %v", err)
	case err != nil:
		return tools.Failf(tools.CategoryExecution, "generate_image: %v", err)
	}
	out := fmt.Sprintf("saved a %dx%d %s image (%d bytes) to %s (provider %s, model %s)",
		img.Width, img.Height, img.MIME, len(img.Data), s.Rel, img.Provider, img.Model)
	if s.Note != "" {
		out += "\nnote: " + s.Note
	}
	return tools.Success(out, &tools.Meta{Path: s.Rel, Files: []string{s.Rel}})
}
