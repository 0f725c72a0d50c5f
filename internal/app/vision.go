package app

import (
	"fmt"
	"slices"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/loader"
	"github.com/zelvior/aidex/internal/tools"
)

// ImageInput reports whether the runtime's model accepts images, and when
// it does not, the note said instead of sending them ("this model cannot
// see images (…); choose a vision model with /model"). A model accepts
// images when [providers.NAME] vision_models lists it, else when the
// catalog (or the provider's live list) says so, else when it is served
// by the Anthropic or Gemini APIs (all of whose current models do).
func (rt *Runtime) ImageInput() (bool, string) {
	if pc, ok := rt.Config.Providers[rt.Provider.Name]; ok && slices.Contains(pc.VisionModels, rt.Model) {
		return true, ""
	}
	known := false
	if m, ok := rt.Provider.Model(rt.Model); ok && m.Vision != nil {
		if *m.Vision {
			return true, ""
		}
		known = true
	}
	if !known && (rt.Provider.Type == catalog.WireAnthropic || rt.Provider.Type == catalog.WireGemini) {
		return true, ""
	}
	why := fmt.Sprintf("%s/%s does not take image input; if it does, add it to vision_models under [providers.%s]", rt.Provider.Name, rt.Model, rt.Provider.Name)
	if known {
		why = fmt.Sprintf("the catalog lists no image input for %s/%s", rt.Provider.Name, rt.Model)
	}
	return false, fmt.Sprintf("this model cannot see images (%s); choose a vision model with /model", why)
}

// ImageSide is the longest image side in pixels for the runtime's provider
// (loader.ImageSideFor its wire type).
func (rt *Runtime) ImageSide() int { return loader.ImageSideFor(string(rt.Provider.Type)) }

// imageParts turns a tool's images into image parts.
func imageParts(images []tools.Image) []llm.Part {
	parts := make([]llm.Part, len(images))
	for i, im := range images {
		parts[i] = llm.Part{Type: llm.PartImage, MIMEType: im.MIME, Data: im.Data}
	}
	return parts
}

// withImages gives r the tool's images when the model can see them, else
// adds the note saying it cannot to the output.
func withImages(r *agent.ToolResultInfo, images []tools.Image, vision bool, note string) {
	if len(images) == 0 || !r.OK {
		return
	}
	if vision {
		r.Images = imageParts(images)
		return
	}
	r.Output += fmt.Sprintf("\n[%d image(s) not shown: %s]", len(images), note)
}
