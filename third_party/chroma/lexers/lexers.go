package lexers

import (
	"embed"

	"github.com/alecthomas/chroma/v2"
)

//go:generate go run ./internal/metadatagen

//go:embed embedded
var embedded embed.FS

// embeddedLexer is the configuration of the embedded XML lexer at path
// (metadata_gen.go).
type embeddedLexer struct {
	path   string
	config chroma.Config
}

// xmlLexer returns the embedded XML lexer at path, built from its generated
// configuration: its rules are read on first use and its analyser regexes
// compiled on the first AnalyseText. It panics if path has no generated
// configuration (re-run go generate).
//
// aidex patch: the design of upstream alecthomas/chroma#1356, instead of
// decoding the <config> of every XML file in package init.
func xmlLexer(path string) *chroma.RegexLexer {
	for i := range embeddedMetadata {
		if embeddedMetadata[i].path == path {
			config := embeddedMetadata[i].config
			return chroma.NewXMLLexerWithConfig(embedded, path, &config)
		}
	}
	panic("chroma/lexers: no generated metadata for " + path + " (run go generate)")
}

// GlobalLexerRegistry is the global LexerRegistry of Lexers, built from the
// generated metadata (no XML is parsed in package init).
//
// aidex patch: it is filled on its first lookup, not in package init (see
// PATCHES.md); read it through its methods or this package's functions.
var GlobalLexerRegistry = chroma.NewLazyLexerRegistry(func(reg *chroma.LexerRegistry) {
	for i := range embeddedMetadata {
		config := embeddedMetadata[i].config
		lexer := chroma.NewXMLLexerWithConfig(embedded, embeddedMetadata[i].path, &config)
		if analyse := goAnalyser(embeddedMetadata[i].path); analyse != nil {
			lexer.SetAnalyser(analyse)
		}
		reg.Register(lexer)
	}
})

// goAnalyser returns the analyser written in Go for the embedded XML lexer
// at path, or nil (aidex patch: upstream sets these in init functions with
// Get, which would fill the registry at start-up).
func goAnalyser(path string) func(text string) float32 {
	switch path {
	case "embedded/dns.xml":
		return analyseDNS
	case "embedded/mysql.xml":
		return analyseMySQL
	case "embedded/zed.xml":
		return analyseZed
	}
	return nil
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return GlobalLexerRegistry.Names(withAliases)
}

// Aliases of all the lexers, and skip those lexers who do not have any aliases,
// or show their name instead
func Aliases(skipWithoutAliases bool) []string {
	return GlobalLexerRegistry.Aliases(skipWithoutAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return GlobalLexerRegistry.Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return GlobalLexerRegistry.MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return GlobalLexerRegistry.Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
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
