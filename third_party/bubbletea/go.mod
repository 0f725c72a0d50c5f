module charm.land/bubbletea/v2

retract v2.0.0-beta1 // We add a "." after the "beta" in the version number.

go 1.26.0

require (
	github.com/charmbracelet/colorprofile v0.4.3
	github.com/charmbracelet/ultraviolet v0.0.0-20261008173134-6b8d4baf91b4
	github.com/charmbracelet/x/ansi v0.12.0
	github.com/charmbracelet/x/exp/golden v0.0.0-20241212170349-ad4b7ae0f25f
	github.com/charmbracelet/x/term v0.2.2
	github.com/lucasb-eyer/go-colorful v1.4.1
	github.com/muesli/cancelreader v0.2.2
	golang.org/x/sys v0.47.0
)

require (
	github.com/aymanbagabas/go-udiff v0.2.0 // indirect
	github.com/charmbracelet/x/termios v0.1.1 // indirect
	github.com/charmbracelet/x/windows v0.2.2 // indirect
	github.com/clipperhouse/displaywidth v0.11.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/mattn/go-runewidth v0.0.30 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/xo/terminfo v1.0.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
)
