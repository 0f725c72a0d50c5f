module github.com/alecthomas/chroma/v2

go 1.17

require (
	github.com/alecthomas/repr v0.0.0-20220113201626-b1b626ac65ae
	github.com/dlclark/regexp2 v1.4.0
	github.com/stretchr/testify v1.7.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.0-20200313102051-9f266ea9e77c // indirect
)
