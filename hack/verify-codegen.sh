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

# Fails when the generated code under apis/ is not what hack/update-codegen.sh
# produces from the current sources. It regenerates into a scratch copy of
# the module (go.mod, go.sum, hack/ scripts and apis/), so the work tree is
# never touched, then compares the two apis/ trees, including files that
# should no longer exist.

set -o errexit
set -o nounset
set -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
SCRATCH="$(mktemp -d -t fed-verify-codegen.XXXXXX)"
trap 'rm -rf "${SCRATCH}"' EXIT

mkdir -p "${SCRATCH}/hack"
cp "${ROOT}/go.mod" "${ROOT}/go.sum" "${SCRATCH}/"
cp "${ROOT}/hack/boilerplate.go.txt" "${ROOT}/hack/update-codegen.sh" "${SCRATCH}/hack/"
cp -a "${ROOT}/apis" "${SCRATCH}/apis"

if ! log="$(bash "${SCRATCH}/hack/update-codegen.sh" "${SCRATCH}" 2>&1)"; then
    echo "${log}" >&2
    echo "hack/update-codegen.sh failed" >&2
    exit 1
fi

if ! diff -ruN "${ROOT}/apis" "${SCRATCH}/apis"; then
    echo >&2
    echo "Generated code under apis/ is out of date; run hack/update-codegen.sh." >&2
    exit 1
fi
echo "Generated code under apis/ is up to date."
