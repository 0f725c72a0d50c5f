// The eval suite's tasks are not part of aidex: this file keeps their Go
// files out of `go build ./...`, `go vet ./...` and `go test ./...`.
module aidex.invalid/evaltasks

go 1.22
