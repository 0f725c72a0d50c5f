#!/bin/sh
# install.sh: installs aidex and its helpers aidex-chat, aidex-sandbox and aidex-nats from a
# release archive, without Go. Details: docs/install.md.
#
#   curl -fsSL https://github.com/zelvior/aidex/releases/latest/download/install.sh | sh
#   sh install.sh [--dir DIR]
#
# It picks the archive for this OS and CPU (aidex-OS-ARCH.tar.gz: linux or
# darwin, amd64 or arm64), downloads it and SHA256SUMS from
# $AIDEX_INSTALL_BASE (default: the latest release), refuses it unless its
# SHA-256 is the one SHA256SUMS lists, and only then unpacks it and installs
# aidex, aidex-chat, aidex-sandbox and aidex-nats into DIR: --dir, else $AIDEX_INSTALL_DIR, else
# ~/.local/bin. Nothing downloaded runs before its checksum matched.
set -eu

base=${AIDEX_INSTALL_BASE:-https://github.com/zelvior/aidex/releases/latest/download}
dir=''

die() { echo "install.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case $1 in
    --dir) [ -n "${2:-}" ] || die "--dir needs a folder"; dir=$2; shift 2 ;;
    --dir=?*) dir=${1#--dir=}; shift ;;
    -h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0" 2>/dev/null || echo "usage: install.sh [--dir DIR]"; exit 0 ;;
    *) die "unknown argument $1 (usage: install.sh [--dir DIR])" ;;
  esac
done
[ -n "$dir" ] || dir=${AIDEX_INSTALL_DIR:-${HOME:?HOME is not set: give --dir DIR}/.local/bin}

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN* | Windows_NT)
    die "on Windows, run install.ps1 in PowerShell: irm $base/install.ps1 | iex" ;;
  *) die "no release for $(uname -s): build from source (go install ./cmd/... in a clone, docs/install.md)" ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64 | armv8*) arch=arm64 ;;
  *) die "no release for $(uname -s) on $(uname -m): build from source (go install ./cmd/... in a clone, docs/install.md)" ;;
esac
# A shell under Rosetta 2 sees x86_64 on an Apple silicon Mac: install the native build.
if [ "$os/$arch" = darwin/amd64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || :)" = 1 ]; then
  arch=arm64
fi
name=aidex-$os-$arch
archive=$name.tar.gz

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t aidex-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# An https base is fetched over https only, redirects included.
proto='=https'
case $base in http://*) proto='=http,https' ;; esac
fetch() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --proto "$proto" --tlsv1.2 -o "$2" "$1" || die "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || die "could not download $1"
  else
    die "neither curl nor wget is installed: install one and run this again"
  fi
}

sha256() { # FILE: prints its SHA-256 in lowercase hex
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  else
    die "no SHA-256 tool (sha256sum, shasum or openssl): install one and run this again"
  fi
}

echo "downloading $archive from $base" >&2
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS"
fetch "$base/$archive" "$tmp/$archive"

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/SHA256SUMS")
case $want in
  '' | *[!0-9a-f]*) die "$base/SHA256SUMS lists no SHA-256 for $archive: refusing to install" ;;
esac
[ ${#want} -eq 64 ] || die "$base/SHA256SUMS lists no SHA-256 for $archive: refusing to install"
got=$(sha256 "$tmp/$archive")
if [ "$got" != "$want" ]; then
  die "checksum mismatch for $archive: SHA256SUMS says $want, the download is $got; refusing to install (download again; if it persists, report it)"
fi

mkdir -p "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" || die "could not unpack $archive"
mkdir -p "$dir" || die "could not create $dir: choose another folder with --dir DIR"
for f in aidex aidex-chat aidex-sandbox aidex-nats; do
  [ -f "$tmp/x/$name/$f" ] || die "$archive holds no $name/$f"
  # Copy beside the target, then rename: a running aidex keeps its old file.
  cp "$tmp/x/$name/$f" "$dir/.$f.new" || die "could not write to $dir: choose another folder with --dir DIR"
  chmod 755 "$dir/.$f.new"
  mv -f "$dir/.$f.new" "$dir/$f"
done

echo "installed $("$dir/aidex" --version) into $dir" >&2
case :${PATH:-}: in
  *:"$dir":*) ;;
  *)
    echo "$dir is not on your PATH: add it, e.g. with this line in ~/.profile (or ~/.bashrc, ~/.zshrc):" >&2
    echo "  export PATH=\"$dir:\$PATH\"" >&2
    ;;
esac
