package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/wire"
	"github.com/zelvior/aidex/internal/loader"
	"github.com/zelvior/aidex/internal/tools"
)

// imageInput reports whether the runtime's model accepts images, and when
// it does not, the note said instead of sending them ("this model cannot
// see images (…); choose a vision model with /model"). A model accepts
// images when [providers.NAME] vision_models lists it, else when the
// catalog (or the provider's live list) says so, else when its wire format's
// models all see images (wire.Format.Vision: the Anthropic and Gemini
// APIs).
func (rt modelRoom) imageInput() (bool, string) {
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
	if f, ok := wire.Lookup(string(rt.Provider.Type)); !known && ok && f.Vision {
		return true, ""
	}
	why := fmt.Sprintf("%s/%s does not take image input; if it does, add it to vision_models under [providers.%s]", rt.Provider.Name, rt.Model, rt.Provider.Name)
	if known {
		why = fmt.Sprintf("the catalog lists no image input for %s/%s", rt.Provider.Name, rt.Model)
	}
	return false, fmt.Sprintf("this model cannot see images (%s); choose a vision model with /model", why)
}

// imageSide is the longest image side in pixels for the runtime's provider
// (its wire format's wire.Format.ImageSide, else loader.DefaultImageSide).
func (rt modelRoom) imageSide() int {
	if f, ok := wire.Lookup(string(rt.Provider.Type)); ok && f.ImageSide > 0 {
		return f.ImageSide
	}
	return loader.DefaultImageSide
}

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

// mediaFilter returns c, or for a model that cannot see images (or read
// PDFs natively) c with those parts replaced by a text note in every
// request: images and documents kept in a session's history (or sent by
// an API client) must not fail the request of a model switched to later.
func (rt modelRoom) mediaFilter(c llm.Client) llm.Client {
	vision, note := rt.modelRoom().imageInput()
	native := rt.modelRoom().nativePDF()
	if vision && native {
		return c
	}
	drop := func(p llm.Part) (llm.Part, bool) {
		switch {
		case p.Type == llm.PartImage && !vision:
			return llm.Part{Type: llm.PartText, Text: "[image not shown: " + note + "]"}, true
		case p.Type == llm.PartDocument:
			return llm.Part{Type: llm.PartText, Text: "[PDF document " + p.Text + " not sent: this model does not read PDFs itself; read it with read_file]"}, true
		}
		return p, false
	}
	return llm.ClientFunc(func(ctx context.Context, req *llm.Request, h llm.Handler) (*llm.Response, error) {
		var msgs []llm.Message
		for i := range req.Messages {
			parts := req.Messages[i].Parts
			for j := range parts {
				if t := parts[j].Type; t != llm.PartImage && t != llm.PartDocument { // a look at the type alone: every message, every turn
					continue
				}
				np, changed := drop(parts[j])
				if !changed {
					continue
				}
				if msgs == nil {
					msgs = slices.Clone(req.Messages)
				}
				if &msgs[i].Parts[0] == &parts[0] {
					msgs[i].Parts = slices.Clone(parts)
				}
				msgs[i].Parts[j] = np
			}
		}
		if msgs == nil {
			return c.Generate(ctx, req, h)
		}
		cp := *req
		cp.Messages = msgs
		return c.Generate(ctx, &cp, h)
	})
}
