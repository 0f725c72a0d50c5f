package release

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// one returns the first submatch of re in text, failing the test naming
// what when there is none.
func one(t *testing.T, text, file, what string, re *regexp.Regexp) string {
	t.Helper()
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s: found no %s (%s)", file, what, re)
	}
	return m[1]
}

// scripts/release.sh builds, and install.ps1 (which cannot run here: no
// PowerShell) asks for, exactly the platforms this package packs.
func TestInstallersAgreeOnPlatforms(t *testing.T) {
	rel := readRepoFile(t, "scripts/release.sh")
	ps := readRepoFile(t, "install.ps1")
	var want, winArch, psArch []string
	for _, p := range Platforms() {
		want = append(want, p.String())
		if p.OS == "windows" {
			winArch = append(winArch, p.Arch)
		}
	}
	if got := strings.Fields(one(t, rel, "scripts/release.sh", "platforms line", regexp.MustCompile(`(?m)^platforms="([^"]*)"$`))); !slices.Equal(got, want) {
		t.Errorf("scripts/release.sh builds %v, want %v (release.Platforms)", got, want)
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*'[A-Z0-9]+' \{ '([a-z0-9]+)' \}$`).FindAllStringSubmatch(ps, -1) {
		psArch = append(psArch, m[1])
	}
	if !slices.Equal(psArch, winArch) {
		t.Errorf("install.ps1 maps to architectures %v, want %v", psArch, winArch)
	}
}

// scripts/release.sh, install.sh and install.ps1 name the same archives
// (Platform.Dir, Platform.ArchiveName), programs and checksum file. (Which
// archive install.sh picks on each Unix platform is run by
// TestInstallShPicksThePlatformsArchive.)
func TestInstallersAgreeOnNames(t *testing.T) {
	rel := readRepoFile(t, "scripts/release.sh")
	sh := readRepoFile(t, "install.sh")
	ps := readRepoFile(t, "install.ps1")
	for _, p := range Platforms() {
		tmpl := "aidex-$os-$arch.tar.gz"
		if p.OS == "windows" {
			tmpl = "aidex-windows-$Arch.zip"
		}
		if got := strings.NewReplacer("$os", p.OS, "$arch", p.Arch, "$Arch", p.Arch).Replace(tmpl); got != p.ArchiveName() {
			t.Errorf("the installers ask for %s on %s, the release writes %s", got, p, p.ArchiveName())
		}
	}
	for _, c := range []struct{ file, text, what, want string }{
		{"scripts/release.sh", rel, "build", `-o "$stage/bin/aidex-$goos-$goarch/" ./cmd/aidex ./cmd/aidex-chat ./cmd/aidex-sandbox ./cmd/aidex-nats`},
		{"install.sh", sh, "archive name", `name=aidex-$os-$arch` + "\n" + `archive=$name.tar.gz`},
		{"install.sh", sh, "programs", `for f in aidex aidex-chat aidex-sandbox aidex-nats; do`},
		{"install.sh", sh, "archive folder", `"$tmp/x/$name/$f"`},
		{"install.sh", sh, "checksum file", `"$base/` + ChecksumFile + `"`},
		{"install.ps1", ps, "archive name", `$Name = "aidex-windows-$Arch"` + "\n" + `$Archive = "$Name.zip"`},
		{"install.ps1", ps, "checksum file", `"$Base/` + ChecksumFile + `"`},
		{"install.ps1", ps, "programs", `'aidex.exe', 'aidex-chat.exe', 'aidex-sandbox.exe', 'aidex-nats.exe'`},
		{"install.ps1", ps, "archive folder", `"x\$Name\$Exe"`},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s: its %s is not %q", c.file, c.what, c.want)
		}
	}
}

// install.sh and install.ps1 download from the same default base and
// install into the same folder, ~/.local/bin, and the documents show the
// one-liners that fetch them from that base.
func TestInstallersAgreeOnDefaults(t *testing.T) {
	sh := readRepoFile(t, "install.sh")
	ps := readRepoFile(t, "install.ps1")
	shBase := one(t, sh, "install.sh", "default base", regexp.MustCompile(`base=\$\{AIDEX_INSTALL_BASE:-([^}]+)\}`))
	psBase := one(t, ps, "install.ps1", "default base", regexp.MustCompile(`\$env:AIDEX_INSTALL_BASE \} else \{ '([^']+)' \}`))
	if shBase != psBase || !strings.HasPrefix(shBase, "https://") {
		t.Errorf("default download base: install.sh %q, install.ps1 %q; want the same https URL", shBase, psBase)
	}
	shDir := one(t, sh, "install.sh", "default folder", regexp.MustCompile(`dir=\$\{AIDEX_INSTALL_DIR:-\$\{HOME:\?[^}]*\}([^}]+)\}`))
	psDir := one(t, ps, "install.ps1", "default folder", regexp.MustCompile(`\$env:AIDEX_INSTALL_DIR \} else \{ Join-Path \$HOME '([^']+)' \}`))
	if shDir != "/.local/bin" || psDir != `.local\bin` {
		t.Errorf("default install folder: install.sh $HOME%s, install.ps1 $HOME\\%s; want ~/.local/bin in both", shDir, psDir)
	}
	for _, doc := range []string{"README.md", "docs/install.md", "scripts/release-README.md"} {
		text := readRepoFile(t, doc)
		for _, want := range []string{"curl -fsSL " + shBase + "/install.sh | sh", "irm " + psBase + "/install.ps1 | iex"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not show the installer one-liner %q", doc, want)
			}
		}
	}
}
