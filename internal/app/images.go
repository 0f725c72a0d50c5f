package app

import "github.com/zelvior/aidex/internal/imagegen"

// ImageGenerator returns the generator of the runtime's configuration
// (image_provider, image_model, image_base_url, its key). Errors:
// images.ErrNeedsCredentials (wrapped) when the provider needs a key it
// does not have; an unknown provider.
func (rt *Runtime) ImageGenerator() (*imagegen.Generator, error) {
	return imagegen.New(imagegen.FromConfig(rt.Config, rt.Getenv))
}
