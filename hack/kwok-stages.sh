#!/usr/bin/env bash
# Collects the node and pod lifecycle stages that kwok ships into one file for the lab.
# kwok refuses to start without stages; the fast ones make nodes and pods Ready at once.
# The node heartbeat is every 20-40 s instead of kwok's 10-20 min: a node's status then comes
# back whole within a minute whatever took part of it (once, under load, every node but one
# lost its addresses after a NotReady spell, and with them metrics, logs and exec).
set -euo pipefail
version=${1:?usage: kwok-stages.sh VERSION OUT}
out=${2:?usage: kwok-stages.sh VERSION OUT}
dir=$(cd "$(dirname "$0")/tools" && go mod download -json "sigs.k8s.io/kwok@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$dir" ] || { echo "kwok module $version not found in the module cache" >&2; exit 1; }
{
	for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
		echo "---"
		sed -e 's/durationMilliseconds: 600000$/durationMilliseconds: 20000/' \
			-e 's/jitterDurationMilliseconds: 610000$/jitterDurationMilliseconds: 40000/' \
			"$dir/kustomize/stage/$f"
	done
} > "$out"
