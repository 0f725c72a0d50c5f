package config

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
)

// KeyReference returns the Markdown table of every configuration key the
// schema accepts, in declaration order: the key as config.toml writes it
// (provider keys as providers.NAME.KEY), its value type, the environment
// variable that sets it, its allowed values or range, and what it does,
// taken from the comment of its field in the Go source (default values
// in [brackets]). dir is the folder of this package's source files: a
// compiled program does not carry comments. It is the generated part of
// docs/configuration.md (go generate ./internal/docgen). formats are the
// wire formats providers.NAME.type takes (wire.ConfigFormats). Errors: a
// source file of dir that cannot be parsed.
func KeyReference(dir string, formats []WireFormat) (string, error) {
	comments, err := fieldComments(dir)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| key | type | environment | values | meaning |\n|---|---|---|---|---|\n")
	for _, s := range specsFor(formats) {
		owner, field := specField(s)
		env := ""
		if e := s.envName(); e != "" {
			env = "`" + e + "`"
		}
		name := strings.ReplaceAll(s.name, "*", "NAME")
		doc := comments[owner+"."+field]
		if rest, ok := strings.CutPrefix(doc, field+" "); ok {
			doc = "`" + name[strings.LastIndexByte(name, '.')+1:] + "` " + rest // the Go name as the key
		}
		doc = strings.ReplaceAll(doc, "|", `\|`)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", name, kindName(s.kind), env, keyValues(s), doc)
	}
	return b.String(), nil
}

// specField returns the Go type and field names that hold s
// ("Sandbox", "Network").
func specField(s keySpec) (owner, field string) {
	t := reflect.TypeFor[Config]()
	if s.provider {
		t = reflect.TypeFor[ProviderConfig]()
	}
	for i, idx := range s.index {
		f := t.Field(idx)
		if i == len(s.index)-1 {
			return t.Name(), f.Name
		}
		t = f.Type
	}
	return "", ""
}

// kindName is the value type of a key as the reference names it.
func kindName(k kind) string {
	return [...]string{kindString: "string", kindBool: "boolean", kindInt: "integer", kindFloat: "number",
		kindList: "list of strings", kindRules: "list of rules"}[k]
}

// keyValues describes the values a key takes: its enum, its integer
// range, or nothing.
func keyValues(s keySpec) string {
	if e := s.values(); e != nil {
		return "`" + strings.Join(e, "`, `") + "`"
	}
	if s.kind != kindInt {
		return ""
	}
	lo, hi := intMin(s.name), intMax(s.name)
	if hi > 0 {
		return fmt.Sprintf("%d to %d", lo, hi)
	}
	return fmt.Sprintf("≥ %d", lo)
}

// fieldComments reads the struct field comments of the Go files in dir
// (tests excluded): "Type.Field" → the doc comment above the field and
// the line comment after it, on one line.
func fieldComments(dir string) (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("read the config fields' comments: no Go files in %s", dir)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("read the config fields' comments: %w", err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				for _, fl := range st.Fields.List {
					text := strings.Join(strings.Fields(fl.Doc.Text()+" "+fl.Comment.Text()), " ")
					for _, n := range fl.Names {
						out[ts.Name.Name+"."+n.Name] = text
					}
				}
			}
			return false
		})
	}
	return out, nil
}
