package tui

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/ui/format"
)

// mdCorpus is markdown as models write it, one sample per element glamour
// styles, for the look tests.
var mdCorpus = []string{
	benchSection + benchSection,
	"# Title\n\n## Sub\n\n### Third\n\n#### Fourth\n\n##### Fifth\n\n###### Sixth\n\ntext under it\n",
	"Some **bold**, *italic*, ***both***, ~~old~~ and `code` text, with a [link](https://example.com) and <https://auto.example> and an ![image](x.png).\n",
	"- one\n- two\n  - nested **bold**\n  - nested two\n    1. deep\n- three\n\n3. starts at three\n4. four\n\n- [ ] open task\n- [x] done task\n",
	"> quoted *emphasis* that is long enough to wrap around the terminal's width at least once when it is narrow\n>\n> - a list in a quote\n\nafter\n",
	"```go\nfunc main() {\n\tfmt.Println(\"hi\") // say hi\n}\n```\n\n```\nplain code\n  indented\n```\n\n    indented code block\n",
	"| a | b |\n|---|---|\n| **1** | `two` |\n| three | [four](https://x.y) |\n\n---\n\nend\n",
	"A paragraph with a hard  \nbreak and CJK 漢字かな混じり文 that wraps 漢字かな混じり文 漢字かな混じり文 漢字かな混じり文 and emoji :smile: here.\n\n<b>html</b> inline and\n\n<div>block html</div>\n\nafter the html\n",
}

// TestMarkdownLooksLikeGlamour: the renderer (glamour without the
// document colour, then paintDefault) shows every cell exactly as
// glamour's own dark and light styles do: the same character, colours
// and attributes, at several widths.
func TestMarkdownLooksLikeGlamour(t *testing.T) {
	for _, style := range []string{"dark", "light"} {
		for _, width := range []int{30, 80, 110} {
			ref, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width-2))
			require.NoError(t, err)
			var m mdRenderer
			for i, md := range mdCorpus {
				want, err := ref.Render(format.ExpandTabs(md)) // tabs are expanded before rendering
				require.NoError(t, err)
				got := m.render(md, width, style)
				require.Equal(t, screenCells(trimBlankLines(want)), screenCells(got), "%s, width %d, sample %d:\n%s", style, width, i, got)
			}
		}
	}
}

// TestMarkdownRenderIsLighter: the rendering carries no padding of
// coloured spaces (what made glamour slow and the output ~10x its text).
func TestMarkdownRenderIsLighter(t *testing.T) {
	var m mdRenderer
	out := m.render("Some **bold** text.\n\n- a\n- b\n", 110, "dark")
	require.Contains(t, out, "\x1b[38;5;252m", "the text has the document colour")
	require.NotContains(t, out, "\x1b[38;5;252m \x1b[m", "no coloured padding")
	for _, l := range strings.Split(out, "\n") {
		require.LessOrEqual(t, len(l), 120, "line %q", l)
	}
}

func TestPaintDefault(t *testing.T) {
	const on, off = "\x1b[38;5;252m", "\x1b[39m"
	cases := []struct{ in, want string }{
		{"ab", on + "ab" + off},
		{"  a", "  " + on + "a" + off},
		{"a\nb", on + "a" + off + "\n" + on + "b" + off},
		{"\x1b[38;5;39mx\x1b[m y", "\x1b[38;5;39mx\x1b[m " + on + "y" + off},
		{"\x1b[1mx", "\x1b[1m" + on + "x" + off},
		{"\x1b[4m \x1b[24m ", "\x1b[4m" + on + " \x1b[24m " + off},
		{"\x1b[48;5;63m \x1b[0m", "\x1b[48;5;63m" + on + " \x1b[0m"},
		{"\x1b]8;;https://x\x1b\\l\x1b]8;;\x1b\\", "\x1b]8;;https://x\x1b\\" + on + "l\x1b]8;;\x1b\\" + off},
		{"\x1b[31mr\x1b[39mx", "\x1b[31mr\x1b[39m" + on + "x" + off},
		{"\x1b[38;2;1;2;3;1mx", "\x1b[38;2;1;2;3;1mx"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, paintDefault(c.in, "252"), "input %q", c.in)
	}
	require.Equal(t, "a", paintDefault("a", ""))
}

func FuzzPaintDefault(f *testing.F) {
	for _, s := range []string{"a", "\x1b[1;38;5;3mx\x1b[m y\n z", "\x1b]8;;u\ax", "\x1b[", "\x1b[48:5:3m \x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := paintDefault(s, "252")
		if got := strings.ReplaceAll(strings.ReplaceAll(out, "\x1b[38;5;252m", ""), "\x1b[39m", ""); utf8.ValidString(s) && stripANSI(got) != stripANSI(s) {
			t.Fatalf("text changed: %q -> %q", s, out)
		}
	})
}

// cell is one terminal cell: its character and its SGR attributes.
type cell struct {
	r     rune
	attrs string
}

// screenCells interprets s as a terminal would (SGR only; other sequences
// are skipped) and returns its lines without trailing spaces whose colour
// does not show, each as runs of text under their attributes
// ("{fg:5;252}Some {bold:on fg:5;252}bold").
func screenCells(s string) []string {
	var lines []string
	var line []cell
	st := map[string]string{}
	for i := 0; i < len(s); {
		switch s[i] {
		case 0x1b:
			end := escapeEnd(s, i)
			if seq := s[i:end]; len(seq) >= 3 && seq[1] == '[' && seq[len(seq)-1] == 'm' {
				applySGR(st, seq[2:len(seq)-1])
			}
			i = end
		case '\n':
			lines = append(lines, cellRuns(line))
			line = nil
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			// chroma maps the comment colour #676767 to 241 or 242 at
			// random (a tie in a map's iteration): one cell for both.
			a := strings.ReplaceAll(fmt.Sprint(st)[3:], "fg:5;242", "fg:5;241")
			if r == ' ' && st["bg"] == "" && st["under"] == "" && st["strike"] == "" && st["reverse"] == "" {
				a = "" // a space's foreground does not show
			}
			line = append(line, cell{r, a})
			i += n
		}
	}
	return append(lines, cellRuns(line))
}

// cellRuns writes a line of cells as runs, trailing invisible spaces cut.
func cellRuns(l []cell) string {
	for len(l) > 0 && l[len(l)-1].r == ' ' && l[len(l)-1].attrs == "" {
		l = l[:len(l)-1]
	}
	var b strings.Builder
	prev := "none"
	for _, c := range l {
		if c.attrs != prev && (c.r != ' ' || c.attrs != "") {
			b.WriteString("{" + c.attrs + "}")
			prev = c.attrs
		}
		b.WriteRune(c.r)
	}
	return b.String()
}

// applySGR is a terminal's reading of one SGR sequence's parameters,
// written independently of painter.sgr.
func applySGR(st map[string]string, params string) {
	names := map[string]string{"1": "bold", "2": "faint", "3": "italic", "4": "under", "5": "blink", "7": "reverse", "9": "strike"}
	offs := map[string][]string{"22": {"bold", "faint"}, "23": {"italic"}, "24": {"under"}, "25": {"blink"}, "27": {"reverse"}, "29": {"strike"}, "39": {"fg"}, "49": {"bg"}, "59": {"ul"}}
	ps := strings.Split(params, ";")
	for k := 0; k < len(ps); k++ {
		p := ps[k]
		switch {
		case p == "" || p == "0":
			clear(st)
		case names[p] != "":
			st[names[p]] = "on"
		case offs[p] != nil:
			for _, n := range offs[p] {
				delete(st, n)
			}
		case p == "38" || p == "48" || p == "58":
			n := 1 + colorArgs(ps[k:], "")
			st[map[string]string{"38": "fg", "48": "bg", "58": "ul"}[p]] = strings.Join(ps[k+1:k+n], ";")
			k += n - 1
		case len(p) == 2 && (p[0] == '3' || p[0] == '9'):
			st["fg"] = p
		case len(p) == 2 && p[0] == '4' || len(p) == 3 && p[:2] == "10":
			st["bg"] = p
		default:
			st["other"+p] = "on"
		}
	}
}

// TestStreamedAnswerIsTheWholeRendering: an answer streamed a word at a
// time, with the debounce's renders in between, commits what the
// rendering of the whole answer shows, cell for cell (no lost text, no lost blank lines), and
// the live block is drawn where it will be once committed.
func TestStreamedAnswerIsTheWholeRendering(t *testing.T) {
	for i, md := range mdCorpus {
		for _, every := range []int{1, 7, 40} {
			s := newStream(newStyles(true), true, false, 80)
			words := strings.SplitAfter(md, " ")
			for k, w := range words {
				s.event(agent.Event{Type: agent.EventText, Text: w})
				if k%every == 0 {
					s.renderText(false)
					if s.live != "" && s.blankBefore(s.text) {
						require.True(t, strings.HasPrefix(s.live, "\n"), "sample %d: the live block sits a blank line under the committed ones", i)
					}
					if s.live != "" && len(s.printQ) > 0 && !s.blankBefore(s.text) {
						require.False(t, strings.HasPrefix(s.live, "\n"), "sample %d: no blank line next to an HTML block", i)
					}
				}
			}
			s.event(agent.Event{Type: agent.EventDone})
			var parts []string
			for _, it := range s.printQ {
				parts = append(parts, it.text)
			}
			var m mdRenderer
			require.Equal(t, screenCells(m.render(md, 80, "dark")), screenCells(strings.Join(parts, "\n")), "sample %d, a render every %d words", i, every)
			require.Empty(t, s.live)
		}
	}
}

// A tab in an answer counts no cells for glamour's wrapping but a terminal
// draws up to 8: tabs are expanded before wrapping, so every line fits
// (no word breaks in the middle) and code keeps its indentation.
func TestMarkdownExpandsTabsBeforeWrapping(t *testing.T) {
	md := "Some text:\n\n\t\tindented paragraph words here and there\n\nA\tsentence\twith\ttabs\tbetween\tevery\tword\tof\tit\tuntil\tthe\tend.\n\n```go\nfunc f() {\n\treturn\n}\n```\n"
	for _, style := range []string{"dark", "notty"} {
		var m mdRenderer
		out := stripANSI(m.render(md, 40, style))
		require.NotContains(t, out, "\t", style)
		for _, l := range strings.Split(out, "\n") {
			require.LessOrEqual(t, ansi.StringWidth(l), 40, "%s: %q", style, l)
		}
		require.Contains(t, out, "    return", style)
		require.Contains(t, strings.Fields(out), "between", style)
	}
}
