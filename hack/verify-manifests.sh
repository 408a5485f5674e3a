#!/usr/bin/env bash
# Fails when artifacts/deploy differs from what the chart artifacts/charts/fed renders
# (hack/update-manifests.sh): run make manifests and commit the result.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$ROOT/hack/update-manifests.sh" "$tmp/deploy"
if ! diff -ru "$ROOT/artifacts/deploy" "$tmp/deploy"; then
	echo "artifacts/deploy differs from what artifacts/charts/fed renders: run make manifests" >&2
	exit 1
fi
echo "artifacts/deploy is what artifacts/charts/fed renders"
