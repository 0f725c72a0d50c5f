package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/zelvior/aidex/internal/atomicfile"

	"github.com/zelvior/aidex/internal/imagegen"
)

// imageFlags are the flags of `aidex image`.
type imageFlags struct {
	output        string
	width, height int
	seed          int64
	model         string
	force         bool
}

func newImageCmd(a *cliApp) *cobra.Command {
	var f imageFlags
	cmd := &cobra.Command{
		Use:   `image "PROMPT"`,
		Short: "Generate an image from a prompt and save it (Pollinations by default, no key needed)",
		Long: `Generate an image from a text prompt with the configured image service
(image_provider: pollinations, the key-free default, or openai for any
OpenAI-images-compatible endpoint with image_base_url and image_api_key) and
save it. -o - writes the image to standard output. The file extension follows
the image type when -o has none.`,
		Example: `  aidex image "a lighthouse at dusk, oil painting" -o lighthouse.png
  aidex image "app icon, flat, blue" --width 512 --height 512 --seed 7 -o icon
  aidex image "logo" -o - > logo.jpg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runImage(cmd, args[0], &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "", "file to write (default: image-TIMESTAMP.EXT in the current directory; - for stdout)")
	fl.IntVar(&f.width, "width", imagegen.DefaultSize, "width in pixels")
	fl.IntVar(&f.height, "height", imagegen.DefaultSize, "height in pixels")
	fl.Int64Var(&f.seed, "seed", -1, "seed for a reproducible image (-1 = random)")
	fl.StringVar(&f.model, "model", "", "image model (default: image_model, else the provider's default)")
	fl.BoolVar(&f.force, "force", false, "overwrite an existing file")
	deprecatedShort(fl, a.proc.Stderr, "force", "f")
	return cmd
}

func (a *cliApp) runImage(cmd *cobra.Command, prompt string, f *imageFlags) error {
	rt, err := a.catalogOnly()
	if err != nil {
		return err
	}
	g, err := imagegen.New(imagegen.FromConfig(rt.Config, rt.Getenv))
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	req := imagegen.Request{Prompt: prompt, Width: f.width, Height: f.height, Model: f.model}
	if f.seed >= 0 {
		req.Seed = &f.seed
	}
	ctx, stop := withSignals(cmd.Context())
	defer stop()
	if !a.flags.quiet && f.output != "-" {
		model := f.model
		if model == "" {
			model = g.Model()
		}
		fmt.Fprintf(a.proc.Stderr, "aidex: generating with %s (%s)...\n", g.Provider(), model)
	}
	img, err := g.Generate(ctx, req)
	if err != nil {
		return err
	}
	if f.output == "-" {
		_, err := cmd.OutOrStdout().Write(img.Data)
		return err
	}
	out := f.output
	if out == "" {
		out = "image-" + time.Now().Format("20060102-150405")
	}
	if filepath.Ext(out) == "" {
		out += imagegen.Ext(img.MIME)
	}
	if _, err := os.Stat(out); err == nil && !f.force {
		return usageErr("%s exists: choose another -o or pass --force to overwrite it", out)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("check %s: %w", out, err)
	}
	if dir := filepath.Dir(out); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	if err := atomicfile.WriteFile(out, img.Data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "saved %s (%s, %d bytes, %dx%d)\n", out, img.MIME, len(img.Data), img.Width, img.Height)
	return nil
}
