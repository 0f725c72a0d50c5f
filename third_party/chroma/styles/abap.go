package styles

import (
	"github.com/alecthomas/chroma/v2"
)

// Abap style.
var _ = registerLazy("abap", func() *chroma.Style {
	return chroma.MustNewStyle("abap", chroma.StyleEntries{
		chroma.Comment:        "italic #888",
		chroma.CommentSpecial: "#888",
		chroma.Keyword:        "#00f",
		chroma.OperatorWord:   "#00f",
		chroma.Name:           "#000",
		chroma.LiteralNumber:  "#3af",
		chroma.LiteralString:  "#5a2",
		chroma.Error:          "#F00",
		chroma.Background:     " bg:#ffffff",
	})
})
