package lexers

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// aidex patch: the registry is filled on first use of this package's
// functions (Names, Get, MatchMimeType, Match, Register, Analyse), not in
// package init: parsing the ~180 embedded XML lexers costs ~5 ms and 1.7 MB
// on every start of a program that links chroma. Code that reads
// GlobalLexerRegistry directly must call one of those functions first.
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var (
	loadOnce sync.Once
	// coded holds the lexers written in Go, in package initialisation
	// order, until load registers them after the embedded ones (upstream's
	// order, so that later registrations win as before).
	coded []chroma.Lexer
)

// register records a lexer written in Go for load; it is what the
// package-level lexer variables call instead of Register.
func register(lexer chroma.Lexer) chroma.Lexer {
	coded = append(coded, lexer)
	return lexer
}

// load fills GlobalLexerRegistry once: the embedded XML lexers, then the
// lexers written in Go, then the analysers that upstream set in init
// functions.
func load() {
	loadOnce.Do(func() {
		reg := GlobalLexerRegistry
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		for _, path := range paths {
			reg.Register(chroma.MustNewXMLLexer(embedded, path))
		}
		for _, lexer := range coded {
			reg.Register(lexer)
		}
		coded = nil
		bashAnalyser(reg)
		mysqlAnalyser(reg)
		zedAnalyser(reg)
	})
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	load()
	return GlobalLexerRegistry.Names(withAliases)
}

// Get a Lexer by name, alias or file extension.
func Get(name string) chroma.Lexer {
	load()
	return GlobalLexerRegistry.Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	load()
	return GlobalLexerRegistry.MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
func Match(filename string) chroma.Lexer {
	load()
	return GlobalLexerRegistry.Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	load()
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	load()
	return GlobalLexerRegistry.Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
