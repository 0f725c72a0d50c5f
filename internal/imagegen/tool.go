package imagegen

import (
	"context"
	"errors"
	"fmt"

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

// Tools returns generate_image ("full" profile; kind.Write: output_path is a path
// parameter, so the permission policy confines and approves it like any
// file write; the prompt goes to the image service). Register it with
// tools.Registry.Register.
func Tools(g *Generator) []tools.Def {
	return []tools.Def{
		tools.Define(tools.Spec{Name: "generate_image", Kind: kind.Write, Aliases: []string{"create_image", "image_generation", "text_to_image"},
			Description: "Generate an image from a text prompt and save it into the workspace (PNG/JPEG/WebP as the service returns)."},
			func(ctx context.Context, env *tools.Env, a generateArgs) tools.Result {
				return generateTool(ctx, g, env, a)
			}),
	}
}

func generateTool(ctx context.Context, g *Generator, env *tools.Env, a generateArgs) tools.Result {
	if g == nil {
		return tools.Failf(tools.CategoryExecution, "image generation is not configured (internal error: no generator)")
	}
	if env != nil && env.Workspace != nil {
		// Refuse a bad path before spending a generation on it.
		if _, err := env.Workspace.Resolve(a.OutputPath); err != nil {
			return tools.Failf(tools.CategorySecurity, "output_path refused: %v", err)
		}
	}
	img, err := g.Generate(ctx, Request{Prompt: a.Prompt, Width: a.Width, Height: a.Height, Seed: a.Seed})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Failf(tools.CategoryExecution, "generate_image cancelled: %v", ctx.Err())
		}
		return tools.Failf(tools.CategoryExecution, "generate_image: %v", err)
	}
	s, err := Save(ctx, env, a.OutputPath, img, a.Overwrite)
	switch {
	case errors.Is(err, ErrRefused):
		return tools.Failf(tools.CategorySecurity, "generate_image: %v", err)
	case errors.Is(err, ErrExists):
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
