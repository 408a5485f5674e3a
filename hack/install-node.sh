#!/usr/bin/env bash
# Makes what the lab's real node runs available in BINDIR: containerd, its shim, ctr and runc
# from Debian's packages, and the CNI plugins (Debian's containernetworking-plugins) under
# BINDIR/cni; and openssl, whose commands make the serving certificate of the install the
# tests run as the README shows it. Installs the packages when the machine lacks them; the lab
# starts its own containerd, never the system service.
set -euo pipefail
bin=${1:?usage: install-node.sh BINDIR}
need=()
command -v containerd >/dev/null 2>&1 || need+=(containerd)
command -v runc >/dev/null 2>&1 || need+=(runc)
[ -x /usr/lib/cni/loopback ] || need+=(containernetworking-plugins)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
	echo "installing ${need[*]} (Debian) for the lab's real node"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
	# The package may start its own service; the lab does not use it.
	{ command -v systemctl >/dev/null && $sudo systemctl disable --now containerd 2>/dev/null; } || true
fi
mkdir -p "$bin"
for c in containerd containerd-shim-runc-v2 ctr runc; do
	ln -sf "$(command -v "$c")" "$bin/$c"
done
ln -sfn /usr/lib/cni "$bin/cni"
