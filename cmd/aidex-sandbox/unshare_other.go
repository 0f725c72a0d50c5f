//go:build !linux || !cgo

package main

// unshared reports false: without cgo the helper has no C part, and aidex
// creates its namespaces when it starts it (helper.NamespaceAttr).
func unshared() bool { return false }
