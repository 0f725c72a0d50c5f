package lexers

import (
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// lazyLexer builds its lexer on first use (aidex patch): the lexers whose
// package variables parsed embedded XML and built large keyword tables in
// package init (CommonLisp, EmacsLisp, GoHTMLTemplate) wrap their
// constructor in one. Registering it (load) builds it, as it asks for its
// Config.
type lazyLexer struct {
	once  sync.Once
	build func() chroma.Lexer
	lexer chroma.Lexer
}

// lazy returns a Lexer that calls build once, on first use.
func lazy(build func() chroma.Lexer) chroma.Lexer {
	return &lazyLexer{build: build}
}

func (l *lazyLexer) get() chroma.Lexer {
	l.once.Do(func() { l.lexer = l.build() })
	return l.lexer
}

func (l *lazyLexer) Config() *chroma.Config { return l.get().Config() }

func (l *lazyLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	return l.get().Tokenise(options, text)
}

func (l *lazyLexer) SetRegistry(registry *chroma.LexerRegistry) chroma.Lexer {
	l.get().SetRegistry(registry)
	return l
}

func (l *lazyLexer) SetAnalyser(analyser func(text string) float32) chroma.Lexer {
	l.get().SetAnalyser(analyser)
	return l
}

func (l *lazyLexer) AnalyseText(text string) float32 { return l.get().AnalyseText(text) }
