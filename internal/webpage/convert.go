package webpage

import (
	"context"
	"net/url"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// convertHTML turns an HTML page into format; relative links become
// absolute against page.
func convertHTML(ctx context.Context, src string, format Format, page *url.URL) (string, error) {
	switch format {
	case FormatHTML:
		return src, nil
	case FormatText:
		return htmlText(src), nil
	}
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	md, err := conv.ConvertString(src, converter.WithContext(ctx), converter.WithDomain(page.String()))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(md) + "\n", nil
}

// title returns the text of the page's first <title>, "" when none.
func title(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			name, _ := z.TagName()
			if atom.Lookup(name) == atom.Title {
				if z.Next() == html.TextToken {
					return strings.Join(strings.Fields(html.UnescapeString(string(z.Text()))), " ")
				}
				return ""
			}
			if atom.Lookup(name) == atom.Body {
				return ""
			}
		}
	}
}

// skipped elements contribute no text.
func skipped(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Head, atom.Iframe, atom.Object:
		return true
	}
	return false
}

// block elements start a new line in plain text.
func block(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Br, atom.Li, atom.Ul, atom.Ol, atom.Tr, atom.Table, atom.H1, atom.H2, atom.H3,
		atom.H4, atom.H5, atom.H6, atom.Pre, atom.Blockquote, atom.Section, atom.Article, atom.Header,
		atom.Footer, atom.Nav, atom.Main, atom.Aside, atom.Hr, atom.Dt, atom.Dd, atom.Figcaption, atom.Form:
		return true
	}
	return false
}

// htmlText extracts the readable text of an HTML page: scripts, styles and
// the head left out, one line per block element, runs of blank lines
// collapsed.
func htmlText(src string) string {
	z := html.NewTokenizer(strings.NewReader(src))
	var b strings.Builder
	skip := 0
	space := false // the previous text ended in white space
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken: // io.EOF or malformed input: keep what we have
			return tidy(b.String())
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if skipped(a) && tt == html.StartTagToken {
				skip++
			}
			if block(a) {
				b.WriteByte('\n')
				space = false
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if skipped(a) && skip > 0 {
				skip--
			}
			if block(a) {
				b.WriteByte('\n')
				space = false
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			raw := html.UnescapeString(string(z.Text()))
			words := strings.Fields(raw)
			if len(words) == 0 {
				space = space || raw != ""
				continue
			}
			startsSpace := raw[0] == ' ' || raw[0] == '\n' || raw[0] == '\t' || raw[0] == '\r'
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") && (space || startsSpace) {
				b.WriteByte(' ')
			}
			b.WriteString(strings.Join(words, " "))
			last := raw[len(raw)-1]
			space = last == ' ' || last == '\n' || last == '\t' || last == '\r'
		}
	}
}

// tidy trims lines and keeps at most one blank line in a row.
func tidy(s string) string {
	var out []string
	blank := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			if !blank && len(out) > 0 {
				out = append(out, "")
			}
			blank = true
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n")) + "\n"
}

// HTMLToMarkdown converts an HTML document that is not from the web (a
// local file, an upload) to markdown exactly as web_fetch converts pages;
// relative links stay relative. Errors come from the converter (ctx done).
func HTMLToMarkdown(ctx context.Context, src string) (string, error) {
	return convertHTML(ctx, src, FormatMarkdown, &url.URL{})
}
