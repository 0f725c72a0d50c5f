package image

import (
	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/tools"
)

// Tools returns the image tools: generate_image, generating with g (nil
// makes every call fail with a configuration error). Register them with
// tools.Registry.Register.
func Tools(g *imagegen.Generator) []tools.Def {
	return []tools.Def{generateImageDef(g)}
}
