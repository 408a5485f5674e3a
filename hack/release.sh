#!/usr/bin/env bash
# Copyright 2026 The fed Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Release archives of kubectl fed and its krew manifest (`make release`).
#
#   hack/release.sh            build DIST/kubectl-fed-{linux,darwin}-{amd64,arm64}.tar.gz, each
#                              with kubectl-fed, kubectl_complete-fed and LICENSE at its root,
#                              DIST/sha256sums.txt, and MANIFEST from hack/krew-manifest.yaml.tmpl
#   hack/release.sh --version  print the version a build gets ("" when there is none)
#   hack/release.sh --ldflags  print the -ldflags that set it in kubectl-fed
#
# Environment: VERSION (default: git describe --tags, else the file VERSION; a release
# without either is v0.0.0-dev), DIST (default dist/), MANIFEST (default krew-manifest.yaml).
# Builds use CGO_ENABLED=0 and -trimpath and reuse Go's build cache.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PLATFORMS=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
PKG=github.com/fedhq/fed/plugin/buildinfo

version() {
	if [[ -n "${VERSION:-}" ]]; then
		echo "$VERSION"
	elif git -C "$ROOT" describe --tags --match 'v[0-9]*' --dirty 2>/dev/null; then
		:
	elif [[ -f "$ROOT/VERSION" ]]; then
		tr -d ' \t\n' <"$ROOT/VERSION"
		echo
	fi
}

ldflags() {
	local v=$1 commit state=clean
	commit=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || true)
	if [[ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
		state=dirty
	fi
	echo "-X $PKG.gitVersion=$v -X $PKG.gitCommit=$commit -X $PKG.gitTreeState=$state"
}

case "${1:-}" in
--version)
	version
	exit 0
	;;
--ldflags)
	ldflags "$(version)"
	exit 0
	;;
"") ;;
*)
	echo "usage: $0 [--version|--ldflags]" >&2
	exit 2
	;;
esac

VERSION=$(version)
VERSION=${VERSION:-v0.0.0-dev}
semver='^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'
if ! [[ "$VERSION" =~ $semver ]]; then
	echo "release: VERSION=$VERSION is not a semantic version with a v prefix (krew needs one)" >&2
	exit 1
fi
DIST=${DIST:-$ROOT/dist}
MANIFEST=${MANIFEST:-$ROOT/krew-manifest.yaml}
mkdir -p "$DIST"
DIST=$(cd "$DIST" && pwd)

if command -v sha256sum >/dev/null; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
else
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
fi

# Archive entries get a fixed owner and time, so the same binaries give the same archive.
epoch=$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || echo 0)
LDFLAGS=$(ldflags "$VERSION")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
sed_args=(-e "s|@VERSION@|$VERSION|g")
: >"$DIST/sha256sums.txt"
for platform in "${PLATFORMS[@]}"; do
	os=${platform%/*} arch=${platform#*/}
	name=kubectl-fed-$os-$arch
	dir=$stage/$name
	mkdir -p "$dir"
	echo "release: $name.tar.gz ($VERSION)"
	(cd "$ROOT" && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "-s -w $LDFLAGS" -o "$dir/kubectl-fed" ./cmd/kubectl-fed)
	install -m 0755 "$ROOT/hack/kubectl_complete-fed" "$dir/kubectl_complete-fed"
	install -m 0644 "$ROOT/LICENSE" "$dir/LICENSE"
	tar -C "$dir" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
		-cf - kubectl-fed kubectl_complete-fed LICENSE | gzip -n -9 >"$DIST/$name.tar.gz"
	sum=$(sha256 "$DIST/$name.tar.gz")
	echo "$sum  $name.tar.gz" >>"$DIST/sha256sums.txt"
	sed_args+=(-e "s|@SHA256_${os}_${arch}@|$sum|g")
done

sed "${sed_args[@]}" "$ROOT/hack/krew-manifest.yaml.tmpl" >"$stage/krew-manifest.yaml"
if grep -n '@[A-Za-z0-9_]*@' "$stage/krew-manifest.yaml" >&2; then
	echo "release: placeholders left in the krew manifest" >&2
	exit 1
fi
cp "$stage/krew-manifest.yaml" "$MANIFEST"
if [[ "$(cd "$(dirname "$MANIFEST")" && pwd)/$(basename "$MANIFEST")" != "$DIST/krew-manifest.yaml" ]]; then
	cp "$stage/krew-manifest.yaml" "$DIST/krew-manifest.yaml"
fi
echo "release: $DIST/sha256sums.txt, $MANIFEST"
