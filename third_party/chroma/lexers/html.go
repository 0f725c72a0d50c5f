package lexers

// HTML lexer.
var HTML = xmlLexer("embedded/html.xml")
