//go:build catalog_gen

package catalog

// embeddedFile is empty in the generator's own build (-tags catalog_gen),
// so that `go generate ./internal/catalog` works while catalog_gen.go does
// not compile (a field of fileData renamed or removed).
func embeddedFile() fileData { return fileData{} }
