package bigrepo

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// poolLines is the number of distinct lines made per kind; files sample
// them, so a tree of any size costs one draw per line.
const poolLines = 8192

// templates are the line shapes of each text kind: {w} a lower-case word,
// {c} a capitalised word, {n} a number (never followed by "x", so only
// the inserted needles match RegexNeedle).
var templates = map[kindOf][]string{
	kindGo: {
		"\tif err := {w}.{c}{c}(ctx, {w}); err != nil {",
		"\t\treturn fmt.Errorf(\"{w} {w} %d: %w\", {w}ID, err)",
		"\t}",
		"",
		"func (s *{c}{c}) {c}{c}(ctx context.Context, {w} {c}) error {",
		"\t{w}{c} := make(map[string]int, {n})",
		"// {c}{c} returns the {w} of a {w} {w}; it fails when the {w} is {w}.",
		"\tfor i, {w} := range s.{w}{c} {",
		"\t\tcase {n}, 0x{n}:",
		"\ts.mu.Lock()",
		"\tdefer s.mu.Unlock()",
		"type {c}{c} struct {",
		"\t{c} []{w}.{c} `json:\"{w}_{w},omitempty\"`",
		"\treturn &{c}{c}{ {c}: {w}, {c}: {n} }, nil",
		"\t\t{w} = append({w}, {w}[i:{n}]...)",
		"import \"github.com/example/{w}/{w}\"",
	},
	kindJS: {
		"import { {w}{c}, {c}{c} } from '../{w}/{w}.js';",
		"export function {w}{c}({w}, {w}) {",
		"  const {w} = await {w}.{w}{c}({ {w}: {n}, {w}: '{w}' });",
		"  if (!{w}.{w}) return null;",
		"  }",
		"};",
		"  return {w}.map(({w}) => {w}.{w}{c} * {n});",
		"// {c} the {w} when the {w} changes ({w} {n})",
		"export default class {c}{c} extends {c} {",
		"    this.{w}{c} = new Map();",
		"  for (let i = 0; i < {w}.length; i += {n}) {",
		"",
	},
	kindPython: {
		"def {w}_{w}(self, {w}, {w}={n}):",
		"    \"\"\"{c} the {w} of a {w} {w}.\"\"\"",
		"    if not {w}.{w}_{w}:",
		"        raise {c}Error(f\"{w} {{w}} is {w}\")",
		"    for {w} in self._{w}s:",
		"        {w}[{n}] = {w}.{w}({w}, timeout={n})",
		"class {c}{c}({c}):",
		"from .{w} import {c}{c}, {w}_{w}",
		"    return [{w} for {w} in {w} if {w}.{w} > {n}]",
		"",
	},
	kindMarkdown: {
		"## {c} {w}",
		"The {w} {w} a {w} when the {w} is {w}; see `{w}.{c}` and {n} other {w}s.",
		"- `{w}_{w}`: the {w} of the {w} ({n} by default)",
		"",
		"{c} {w} {w} the {w} {w}, then {w} {w} {w} {w} in {n} {w}s.",
		"```sh",
		"{w} {w} --{w} {n}",
		"```",
	},
	kindJSON: {
		"  \"{w}\": \"{w}-{n}\",",
		"  \"{w}{c}\": {n},",
		"  \"{w}\": [\"{w}\", \"{w}\"],",
		"  \"{w}\": { \"{w}\": true },",
	},
}

// pools holds the generated lines of each text kind.
type pools struct {
	lines map[kindOf][]string
}

// newPools makes poolLines lines of each kind from the templates.
func newPools(seed uint64) *pools {
	rng := rand.New(rand.NewPCG(seed, 1<<62))
	p := &pools{lines: map[kindOf][]string{}}
	for k := kindGo; k <= kindJSON; k++ { // in order: the draws must not depend on map order
		ts := templates[k]
		ls := make([]string, poolLines)
		for i := range ls {
			ls[i] = fill(rng, ts[rng.IntN(len(ts))])
		}
		p.lines[k] = ls
	}
	return p
}

// fill replaces a template's placeholders.
func fill(rng *rand.Rand, t string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 || i+2 >= len(t) || t[i+2] != '}' || !strings.ContainsRune("wcn", rune(t[i+1])) {
			if i < 0 {
				b.WriteString(t)
				return b.String()
			}
			b.WriteString(t[:i+1])
			t = t[i+1:]
			continue
		}
		b.WriteString(t[:i])
		w := words[rng.IntN(len(words))]
		switch t[i+1] {
		case 'w':
			b.WriteString(w)
		case 'c':
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		case 'n':
			fmt.Fprint(&b, rng.IntN(5000))
		}
		t = t[i+3:]
	}
}

// content appends the bytes of file s to buf: exactly s.size bytes,
// ending in a newline (binaries: a PNG signature, NULs, random bytes).
func (p *pools) content(buf []byte, rng *rand.Rand, s fileSpec) []byte {
	switch s.kind {
	case kindBinary:
		buf = append(buf, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"...)
		for len(buf) < s.size {
			buf = append(buf, byte(rng.Uint32()))
		}
		return buf[:s.size]
	case kindGitignore:
		return append(buf, "# dependencies and build output\nnode_modules/\n/build/\n*.log\n"...)
	case kindGoMod:
		return append(buf, "module example.com/bigrepo\n\ngo 1.26\n"...)
	case kindMakefile:
		return append(buf, "test:\n\tgo test ./...\n\nbuild:\n\tgo build ./...\n"...)
	}
	lines := p.lines[s.kind]
	if s.kind == kindGo {
		buf = fmt.Appendf(buf, "package %s\n\n", words[rng.IntN(len(words))])
	}
	needle := -1
	if rng.IntN(NeedleEvery) == 0 {
		needle = rng.IntN(max(s.size/40, 1))
	}
	regex := -1
	if rng.IntN(RegexEvery) == 0 {
		regex = rng.IntN(max(s.size/40, 1))
	}
	for n := 0; len(buf) < s.size; n++ {
		switch n {
		case needle:
			buf = fmt.Appendf(buf, "\tm, err := %s(%s, %d) // reads the %s\n", Needle, words[rng.IntN(len(words))], rng.IntN(100), words[rng.IntN(len(words))])
		case regex:
			w := words[rng.IntN(len(words))]
			buf = fmt.Appendf(buf, "\tvar %s%s%03dx = %d\n", strings.ToUpper(w[:1]), w[1:], rng.IntN(1000), rng.IntN(100))
		}
		buf = append(buf, lines[rng.IntN(len(lines))]...)
		buf = append(buf, '\n')
	}
	buf = buf[:s.size]
	buf[len(buf)-1] = '\n'
	return buf
}
