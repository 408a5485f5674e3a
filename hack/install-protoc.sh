#!/usr/bin/env bash
# Makes protoc (Debian's protobuf-compiler) available as bin/protoc, for go-to-protobuf in
# hack/update-codegen.sh. Installs the package when the machine has no protoc.
set -euo pipefail
bin=${1:?usage: install-protoc.sh BINDIR}
if ! command -v protoc >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
	echo "installing protobuf-compiler (Debian) for the code generation"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq protobuf-compiler >/dev/null
fi
mkdir -p "$bin"
ln -sf "$(command -v protoc)" "$bin/protoc"
