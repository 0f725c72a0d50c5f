#!/bin/sh
# release.sh: builds aidex's release archives and SHA256SUMS with the Go
# toolchain alone (plain `go build`, no GoReleaser). Details: docs/install.md.
#
#   scripts/release.sh [--out DIR] VERSION    # a release: a clean tree, e.g. v1.2.3
#   scripts/release.sh [--out DIR]            # the same, VERSION being the tag on HEAD
#   scripts/release.sh [--out DIR] --snapshot # any tree: v0.0.0-snapshot.COMMIT, published nowhere
#
# DIR (default dist/, which git ignores) receives one archive per platform,
# aidex-GOOS-GOARCH.tar.gz (.zip on Windows), each holding the folder
# aidex-GOOS-GOARCH/ with aidex, aidex-chat, aidex-sandbox, aidex-nats (.exe on Windows), LICENSE
# and README.md, one SHA256SUMS, and install.sh and install.ps1. The same commit and Go version give the
# same bytes: the build date stamped into `aidex --version` and every
# archived file's time are the commit's time; owners, modes and order are
# fixed (internal/release).
set -eu
cd "$(dirname "$0")/.."

# The platforms of a release (internal/release.Platforms; a test keeps the two equal).
platforms="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"

die() { echo "release.sh: $*" >&2; exit 1; }

out=dist snapshot='' version=''
while [ $# -gt 0 ]; do
  case $1 in
    --out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --snapshot) snapshot=1; shift ;;
    -h|--help) sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$version" ] || die "one VERSION only"; version=$1; shift ;;
  esac
done

commit=$(git rev-parse HEAD) || die "not in a git checkout: a release is built from a commit"
if [ -n "$snapshot" ]; then
  [ -z "$version" ] || die "--snapshot makes its own version; drop $version"
  version=v0.0.0-snapshot.$(printf %.12s "$commit")
else
  if [ -z "$version" ]; then
    version=$(git describe --tags --exact-match HEAD 2>/dev/null) ||
      die "HEAD has no tag: give a VERSION (e.g. v1.2.3), tag HEAD, or build a --snapshot"
  fi
  [ -z "$(git status --porcelain)" ] ||
    die "the tree has local changes (git status): commit them, or build a --snapshot"
fi
case $version in *[!A-Za-z0-9.+_-]*|'') die "version $version: letters, digits and . + _ - only" ;; esac

# The commit's time, in UTC: the stamped build date and every archived file's time.
date=$(TZ=UTC0 git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ HEAD)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
trap 'exit 130' INT TERM

# Only what the commit says goes into the binaries: no flags, experiments or
# CPU levels from the environment or `go env -w`, no cgo, no local paths
# (-trimpath); the commit always recorded (-buildvcs=true, whatever GOFLAGS
# says; `aidex --version` prints it).
unset GOEXPERIMENT GO386 GOARM
export GOFLAGS=-mod=readonly GOAMD64=v1 GOARM64=v8.0 CGO_ENABLED=0

for p in $platforms; do
  goos=${p%/*} goarch=${p#*/}
  echo "building aidex $version for $goos/$goarch" >&2
  GOOS=$goos GOARCH=$goarch go build -trimpath -buildvcs=true \
    -ldflags "-s -w -X 'main.build=$version $date'" \
    -o "$stage/bin/aidex-$goos-$goarch/" ./cmd/aidex ./cmd/aidex-chat ./cmd/aidex-sandbox ./cmd/aidex-nats
done

mkdir "$stage/doc"
cp LICENSE "$stage/doc/LICENSE"
sed "s/@VERSION@/$version/" scripts/release-README.md >"$stage/doc/README.md"
mkdir -p "$out"
(cd "$out" && rm -f aidex-*.tar.gz aidex-*.zip SHA256SUMS install.sh install.ps1) # an earlier build's, never anything else
go run ./scripts/pack -stage "$stage/bin" -out "$out" -mtime "$date" "$stage/doc/LICENSE" "$stage/doc/README.md" >/dev/null
# The installers ride along, so .../releases/latest/download/install.sh is this release's.
cp install.sh install.ps1 "$out/"
echo "aidex $version ($commit, $date): $out/SHA256SUMS" >&2
cat "$out/SHA256SUMS"
