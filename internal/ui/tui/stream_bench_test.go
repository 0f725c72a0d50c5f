package tui

import (
	"strings"
	"testing"

	"charm.land/glamour/v2"
)

// benchSection is one section of bench/modelsrv's streamed markdown.
const benchSection = "## Section heading\n\n" +
	"Some **bold** text and *emphasis* with `inline code` in a paragraph that goes on " +
	"for a while, so that it wraps in the terminal and keeps the renderer busy with " +
	"words, [a link](https://example.com) and more words until the paragraph ends.\n\n" +
	"- first item of a list with `code`\n- second item, **bold**\n- third item\n\n" +
	"> a quoted line with *emphasis*\n\n" +
	"```go\nfunc add(a, b int) int {\n\treturn a + b // the sum\n}\n```\n\n" +
	"1. numbered one\n2. numbered two\n\n"

// BenchmarkMarkdownThroughput renders bench/modelsrv's markdown (three
// sections at a time, as the stream commits them) at the width of
// bench/stream-tui.sh's pane and reports the tokens (words) per second
// one core renders: the floor under the TUI's streaming cost, since every
// streamed token is rendered at least once.
func BenchmarkMarkdownThroughput(b *testing.B) {
	var m mdRenderer
	s := strings.Repeat(benchSection, 3)
	for range b.N {
		m.render(s, 110, "dark")
	}
	b.ReportMetric(float64(len(strings.Fields(s))*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkMarkdownThroughputGlamour is BenchmarkMarkdownThroughput with
// glamour's own dark style (the document colour on every padded cell),
// as the TUI rendered before paintDefault: the two side by side show
// what the lighter rendering saves.
func BenchmarkMarkdownThroughputGlamour(b *testing.B) {
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(108))
	if err != nil {
		b.Fatal(err)
	}
	s := strings.Repeat(benchSection, 3)
	for range b.N {
		if _, err := r.Render(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(strings.Fields(s))*b.N)/b.Elapsed().Seconds(), "tokens/s")
}
