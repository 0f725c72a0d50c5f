module github.com/zelvior/aidex

go 1.26.0

replace golang.org/x/exp => golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba

replace github.com/google/pprof => github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe

require (
	charm.land/bubbles/v2 v2.2.2
	charm.land/bubbletea/v2 v2.2.0
	charm.land/glamour/v2 v2.0.1
	charm.land/lipgloss/v2 v2.1.1
	github.com/JohannesKaufmann/html-to-markdown/v2 v2.5.2
	github.com/agnivade/levenshtein v1.2.2
	github.com/alecthomas/chroma/v2 v2.27.0
	github.com/aymanbagabas/go-udiff v0.4.2
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/charlievieth/fastwalk v1.0.14
	github.com/charmbracelet/x/ansi v0.12.0
	github.com/charmbracelet/x/exp/golden v0.1.0
	github.com/charmbracelet/x/exp/teatest/v2 v2.0.0-20260823001701-96af6d2cb5f6
	github.com/charmbracelet/x/term v0.2.2
	github.com/chromedp/cdproto v0.160.5
	github.com/chromedp/chromedp v0.24.0
	github.com/coder/acp-go-sdk v0.13.0
	github.com/dustin/go-humanize v1.1.0
	github.com/go-git/go-git/v5 v5.19.3
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875
	github.com/google/jsonschema-go v0.4.3
	github.com/google/renameio/v2 v2.0.2
	github.com/ledongthuc/pdf v0.0.0-20260907135840-6c8c28e0e8a0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/muesli/cancelreader v0.2.2
	github.com/nats-io/nats-server/v2 v2.15.3
	github.com/nats-io/nats.go v1.56.0
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/pressly/goose/v3 v3.30.1
	github.com/spf13/cobra v1.10.2
	github.com/spf13/pflag v1.0.9
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/image v0.48.0
	golang.org/x/mod v0.43.0
	golang.org/x/net v0.63.0
	golang.org/x/oauth2 v0.38.0
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.48.0
	modernc.org/sqlite v1.63.0
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/JohannesKaufmann/dom v0.3.1 // indirect
	github.com/antithesishq/antithesis-sdk-go v0.9.0-default-no-op // indirect
	github.com/atotto/clipboard v0.1.4 // indirect
	github.com/aymerick/douceur v0.2.0 // indirect
	github.com/charmbracelet/colorprofile v0.4.3 // indirect
	github.com/charmbracelet/ultraviolet v0.0.0-20261008173134-6b8d4baf91b4 // indirect
	github.com/charmbracelet/x/exp/slice v0.0.0-20250327172914-2fdc97757edf // indirect
	github.com/charmbracelet/x/termios v0.1.1 // indirect
	github.com/charmbracelet/x/windows v0.2.2 // indirect
	github.com/clipperhouse/displaywidth v0.11.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/dlclark/regexp2/v2 v2.2.1 // indirect
	github.com/go-git/gcfg v1.5.1-0.20230307220236-3a3c6141e376 // indirect
	github.com/go-git/go-billy/v5 v5.9.2 // indirect
	github.com/google/go-tpm v0.9.8 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/gorilla/css v1.0.1 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/jbenet/go-context v0.0.0-20150711004518-d14ea06fba99 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/lucasb-eyer/go-colorful v1.4.1 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/mattn/go-runewidth v0.0.31 // indirect
	github.com/mfridman/interpolate v0.2.0 // indirect
	github.com/microcosm-cc/bluemonday v1.0.27 // indirect
	github.com/minio/highwayhash v1.0.4 // indirect
	github.com/nats-io/jwt/v2 v2.8.3 // indirect
	github.com/nats-io/nkeys v0.4.17 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	github.com/rivo/uniseg v0.4.8-0.20261110175422-3a370411ca06 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/sethvargo/go-retry v0.5.0 // indirect
	github.com/xo/terminfo v1.0.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	github.com/yuin/goldmark v1.8.7 // indirect
	github.com/yuin/goldmark-emoji v1.0.5 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	gopkg.in/warnings.v0 v0.1.2 // indirect
	modernc.org/libc v1.80.2 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
)

// chroma (pulled by glamour for code highlighting) v2.27.0 parses the
// config of ~280 embedded XML lexers and ~75 XML styles in package init
// (4.6 MB on every start). aidex uses a copy of v2.27.0, the version
// required above, carrying upstream's own lazy-registry change
// (alecthomas/chroma#1354, #1356, merged into the v3 module only); drop it
// at the next v2 tag that has them (third_party/chroma/PATCHES.md).
replace github.com/alecthomas/chroma/v2 => ./third_party/chroma

// Bubble Tea with the inline renderer's insertAbove fixed for output taller
// than the screen (aidex issue 30; third_party/bubbletea/PATCHES.md).
replace charm.land/bubbletea/v2 => ./third_party/bubbletea

// bluemonday (glamour strips HTML with its StrictPolicy) and gorilla/css
// (bluemonday's CSS parser) compile their regular expressions and CSS
// property tables in package init: ~1 MB and 3-5 ms on every aidex start.
// aidex uses copies patched to build them on first use
// (third_party/bluemonday/PATCHES.md, third_party/gorilla-css/PATCHES.md).
replace github.com/microcosm-cc/bluemonday => ./third_party/bluemonday

replace github.com/gorilla/css => ./third_party/gorilla-css

// goldmark (glamour's markdown parser) compiles ~18 regular expressions in
// package init (~0.3 MB, ~1 ms on every aidex start). aidex uses a copy
// patched to compile them on first use (third_party/goldmark/PATCHES.md).
replace github.com/yuin/goldmark => ./third_party/goldmark

// ledongthuc/pdf (the PDF loader) follows cycles in the page tree, the
// /Prev chain and object streams forever, trusts /Count and /Size for
// allocations and decompresses streams without a bound. aidex uses a copy
// patched to tell a Meter of its work, bytes and nesting and to refuse
// cycles (third_party/pdf/PATCHES.md).
replace github.com/ledongthuc/pdf => ./third_party/pdf
