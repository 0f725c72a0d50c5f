package app

import "github.com/zelvior/aidex/internal/imagegen"

// The image generator as the front ends reach it (they import app, not
// imagegen): a request, its image, a known service, the bounds of a
// request and the errors to match with errors.Is.
type (
	// ImageRequest is one image to make (see imagegen.Request: prompt,
	// width and height in pixels, seed).
	ImageRequest = imagegen.Request
	// Image is a made image (see imagegen.Image: MIME type, bytes, size
	// in pixels, provider and model).
	Image = imagegen.Image
	// ImageProvider is a known image service (see imagegen.Preset).
	ImageProvider = imagegen.Preset
)

// Bounds of an image request: a prompt of at most MaxImagePromptBytes
// bytes, width and height MinImageSize..MaxImageSize pixels (0:
// DefaultImageSize).
const (
	MaxImagePromptBytes = imagegen.MaxPromptBytes
	MinImageSize        = imagegen.MinSize
	MaxImageSize        = imagegen.MaxSize
	DefaultImageSize    = imagegen.DefaultSize
)

// Errors of the image generator and of saving an image (errors.Is):
// ErrImageNeedsCredentials from [Runtime.ImageGenerator] when the
// configured provider lacks its key; ErrImageRefused and ErrImageExists
// from saving (a path refused by the confinement; a file that exists).
var (
	ErrImageNeedsCredentials = imagegen.ErrNeedsCredentials
	ErrImageRefused          = imagegen.ErrRefused
	ErrImageExists           = imagegen.ErrExists
)

// ImageProviders returns the built-in image services, key-free first.
func ImageProviders() []ImageProvider { return imagegen.Presets() }

// ImageGenerator returns the generator of the runtime's configuration
// (image_provider, image_model, image_base_url, its key). Errors:
// ErrImageNeedsCredentials (wrapped) when the provider needs a key it
// does not have; an unknown provider.
func (rt *Runtime) ImageGenerator() (*imagegen.Generator, error) {
	return imagegen.New(imagegen.FromConfig(rt.Config, rt.Getenv))
}
