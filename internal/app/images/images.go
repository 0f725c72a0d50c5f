// Package images is the room of app that front ends use for image
// generation (/image, `aidex image`, the web UI's image panel): the
// request and its image, the known image services, the bounds of a
// request and the errors to match with errors.Is. The front ends import
// it beside app, never internal/imagegen; the generator itself comes
// from app.Runtime.ImageGenerator, and saving an image from
// app.Files.SaveImage.
package images

import "github.com/zelvior/aidex/internal/imagegen"

type (
	// Request is one image to make (see imagegen.Request: prompt, width
	// and height in pixels, seed).
	Request = imagegen.Request
	// Image is a made image (see imagegen.Image: MIME type, bytes, size
	// in pixels, provider and model).
	Image = imagegen.Image
	// Provider is a known image service (see imagegen.Preset: name, base
	// URL, default model, whether it needs a key).
	Provider = imagegen.Preset
)

// Bounds of an image request: a prompt of at most MaxPromptBytes bytes,
// width and height MinSize..MaxSize pixels (0: DefaultSize).
const (
	// MaxPromptBytes is the longest prompt, in bytes.
	MaxPromptBytes = imagegen.MaxPromptBytes
	// MinSize is the smallest width or height, in pixels.
	MinSize = imagegen.MinSize
	// MaxSize is the largest width or height, in pixels.
	MaxSize = imagegen.MaxSize
	// DefaultSize is the width and height of a request that gives none,
	// in pixels.
	DefaultSize = imagegen.DefaultSize
)

// Errors of the image generator and of saving an image (errors.Is).
var (
	// ErrNeedsCredentials comes from app.Runtime.ImageGenerator when the
	// configured provider lacks its key: set the key named in the error.
	ErrNeedsCredentials = imagegen.ErrNeedsCredentials
	// ErrRefused comes from saving an image to a path the workspace
	// confinement refuses: choose a path inside the workspace.
	ErrRefused = imagegen.ErrRefused
	// ErrExists comes from saving an image over a file that exists
	// without overwrite: choose another name or overwrite.
	ErrExists = imagegen.ErrExists
)

// Providers returns the built-in image services, key-free first.
func Providers() []Provider { return imagegen.Presets() }
