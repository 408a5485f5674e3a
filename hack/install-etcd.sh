#!/usr/bin/env bash
# Makes etcd (Debian's etcd-server, 3.4) available as bin/etcd. Installs the package when the
# machine has no etcd; the lab starts its own etcd process, never the system service.
set -euo pipefail
bin=${1:?usage: install-etcd.sh BINDIR}
if ! command -v etcd >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
	echo "installing etcd-server (Debian) for the lab"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq etcd-server >/dev/null
	# The package may start its own service; the lab does not use it.
	{ command -v systemctl >/dev/null && $sudo systemctl disable --now etcd 2>/dev/null; } || true
fi
mkdir -p "$bin"
ln -sf "$(command -v etcd)" "$bin/etcd"
