// Package image is the image tool family: generate_image (kind.Write,
// full profile) asks an image service (internal/imagegen) for an image
// from a text prompt and saves it into the workspace. Its output_path is
// a path parameter, so the permission policy confines and approves it
// like any file write; the prompt goes to the image service.
package image
