package loader

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // registers GIF for image.Decode
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers WebP for image.Decode
)

// Image limits. The longest side a provider uses before it scales an image
// down itself (larger images only cost upload time and tokens):
//   - Anthropic: 1568 px ("if your image's long edge is more than 1568
//     pixels … it will first be scaled down", docs.anthropic.com, Vision);
//   - OpenAI (Chat Completions and Responses): 2048 px (high detail images
//     are "scaled to fit within a 2048 x 2048 square", platform.openai.com,
//     Images and vision);
//   - Gemini: 3072 px (larger images are scaled down to 3072 × 3072,
//     ai.google.dev, Image understanding);
//   - Ollama and others: 1568 px, the smallest of the above.
const (
	// DefaultImageSide is the longest side kept when the provider is not
	// known: the smallest of the providers' limits (Anthropic's).
	DefaultImageSide = 1568
	// MaxImageBytes is the largest encoded image sent: Anthropic refuses
	// images over 5 MB, which base64 makes of 3.75 MiB of bytes.
	MaxImageBytes = 3_750_000
)

// loadImage decodes the image (which validates it), scales it to fit
// opts.MaxImageSide, re-encodes GIF and WebP as PNG (every provider takes
// PNG; not every one takes WebP or animated GIF) and describes it.
//
// The header is read first (image.DecodeConfig): an image whose size
// passes the budget's Pixels is refused before a pixel is decoded.
func loadImage(doc *Document, data []byte, opts Options, bud *budget) error {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data)) // formats registered by their imports
	if err != nil {
		return fmt.Errorf("not a valid %s image: %w", doc.MIME, err)
	}
	bpp := bytesPerPixel(cfg.ColorModel)
	if format == "jpeg" && jpegProgressive(data) {
		// image/jpeg keeps every DCT coefficient of a progressive JPEG
		// until its last scan: a 4-byte coefficient a pixel a component.
		bpp += 4 * min(bpp, 4)
	}
	if err := bud.image(cfg.Width, cfg.Height, bpp, "image"); err != nil {
		return err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not a valid %s image: %w", doc.MIME, err)
	}
	w, h := cfg.Width, cfg.Height
	out := Image{MIME: doc.MIME, Data: data, Width: w, Height: h}
	side := opts.MaxImageSide
	reencode := doc.MIME == "image/gif" || doc.MIME == "image/webp" || len(data) > MaxImageBytes
	if max(w, h) > side {
		nw, nh := fit(w, h, side)
		dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
		img, reencode = dst, true
		out.Width, out.Height = nw, nh
		doc.Notes = append(doc.Notes, fmt.Sprintf("image scaled from %d×%d to %d×%d pixels (longest side %d)", w, h, nw, nh, side))
	}
	if reencode {
		if out.MIME, out.Data, err = encode(img, doc.MIME); err != nil {
			return err
		}
	}
	doc.Images = []Image{out}
	doc.Text = fmt.Sprintf("Image %s: %s, %d×%d pixels, %s.", doc.Name, doc.MIME, w, h, HumanSize(doc.Size))
	return nil
}

// bytesPerPixel is what one pixel of an image of color model m takes
// once decoded (image/png, image/jpeg, image/gif and x/image/webp decode
// to the matching image.* type).
func bytesPerPixel(m color.Model) int64 {
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	case color.YCbCrModel:
		return 3 // 4:4:4 at most
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 4
}

// jpegProgressive reports whether the JPEG's frame header (the first SOF
// marker) is progressive (SOF2, SOF6, SOF10, SOF14).
func jpegProgressive(data []byte) bool {
	if len(data) < 4 || data[0] != 0xff || data[1] != 0xd8 {
		return false
	}
	for i := 2; i+3 < len(data); {
		if data[i] != 0xff {
			return false
		}
		m := data[i+1]
		switch {
		case m == 0xff: // fill byte
			i++
			continue
		case m >= 0xd0 && m <= 0xd7 || m == 0x01: // no length
			i += 2
			continue
		case m == 0xda: // start of scan: no frame header before it
			return false
		case m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc:
			return m == 0xc2 || m == 0xc6 || m == 0xca || m == 0xce
		}
		i += 2 + int(data[i+2])<<8 | int(data[i+3])
	}
	return false
}

// fit scales w×h so that its longest side is side, keeping the ratio.
func fit(w, h, side int) (int, int) {
	if w >= h {
		return side, max(1, h*side/w)
	}
	return max(1, w*side/h), side
}

// encode writes img as PNG (or JPEG when the source was a JPEG or the PNG
// is over MaxImageBytes).
func encode(img image.Image, srcMIME string) (string, []byte, error) {
	var buf bytes.Buffer
	if srcMIME != "image/jpeg" {
		if err := png.Encode(&buf, img); err != nil {
			return "", nil, fmt.Errorf("encode PNG: %w", err)
		}
		if buf.Len() <= MaxImageBytes {
			return "image/png", buf.Bytes(), nil
		}
		buf.Reset()
	}
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return "", nil, fmt.Errorf("encode JPEG: %w", err)
	}
	if buf.Len() > MaxImageBytes {
		return "", nil, fmt.Errorf("image is still %s after scaling: the limit is %s", HumanSize(int64(buf.Len())), HumanSize(MaxImageBytes))
	}
	return "image/jpeg", buf.Bytes(), nil
}
