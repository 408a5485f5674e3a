#!/usr/bin/env bash
# Collects the node and pod lifecycle stages that kwok ships into one file for the lab.
# kwok refuses to start without stages; the fast ones make nodes and pods Ready at once.
set -euo pipefail
version=${1:?usage: kwok-stages.sh VERSION OUT}
out=${2:?usage: kwok-stages.sh VERSION OUT}
dir=$(cd "$(dirname "$0")/tools" && go mod download -json "sigs.k8s.io/kwok@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$dir" ] || { echo "kwok module $version not found in the module cache" >&2; exit 1; }
{
	for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
		echo "---"
		cat "$dir/kustomize/stage/$f"
	done
} > "$out"
