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

# Regenerates the generated code of apis/: deepcopy, defaulters, protobuf and
# conversions beside the types, OpenAPI definitions in apis/generated/openapi,
# and the typed clientset, listers, informers and apply configurations in
# apis/generated/.
#
# The generators are the `tool` entries of go.mod, run with `go tool`, so their
# versions are the ones go.mod pins and they build offline from the module
# cache. The output depends only on the sources: the boilerplate carries a
# fixed year and stale files are removed before each run.
#
# Usage: hack/update-codegen.sh [ROOT]
#   ROOT defaults to the repository root; hack/verify-codegen.sh passes a
#   scratch copy.

set -o errexit
set -o nounset
set -o pipefail

ROOT="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)}"
cd "${ROOT}"

MODULE="github.com/fedhq/fed"
BOILERPLATE="hack/boilerplate.go.txt"
GENERATED="apis/generated"
API_GROUPS=(cluster federation search)
VERSION="v1alpha1"

internal_pkgs=()
versioned_pkgs=()
client_inputs=()
for group in "${API_GROUPS[@]}"; do
    internal_pkgs+=("${MODULE}/apis/${group}")
    versioned_pkgs+=("${MODULE}/apis/${group}/${VERSION}")
    client_inputs+=(--input "${group}/${VERSION}")
done

# Kubernetes packages whose types the fed types embed. Their OpenAPI
# definitions are generated alongside fed's so the server can publish a
# complete schema; they are read-only (they live in the module cache and
# already carry their OpenAPI model names).
k8s_openapi_pkgs=(
    k8s.io/apimachinery/pkg/apis/meta/v1
    k8s.io/apimachinery/pkg/runtime
    k8s.io/apimachinery/pkg/version
    k8s.io/apimachinery/pkg/api/resource
    k8s.io/apimachinery/pkg/util/intstr
    k8s.io/api/core/v1
    k8s.io/api/autoscaling/v2
    k8s.io/api/networking/v1
    k8s.io/api/admissionregistration/v1
    k8s.io/metrics/pkg/apis/metrics/v1beta1
    k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1
)
readonly_args=()
for pkg in "${k8s_openapi_pkgs[@]}" k8s.io/apimachinery/pkg/types; do
    readonly_args+=(--readonly-pkg "${pkg}")
done

# Apply configurations that client-go already has for the Kubernetes types
# embedded in fed's types (those of meta/v1 are known to the generator).
external_applyconfigs=""
add_external() { # <type package> <applyconfiguration package> <type>...
    local pkg="$1" ac="$2"
    shift 2
    for typ in "$@"; do
        external_applyconfigs+="${external_applyconfigs:+,}${pkg}.${typ}:${ac}"
    done
}
add_external k8s.io/api/core/v1 k8s.io/client-go/applyconfigurations/core/v1 \
    NodeSelector NodeSelectorRequirement ResourceRequirements Taint Toleration
add_external k8s.io/api/autoscaling/v2 k8s.io/client-go/applyconfigurations/autoscaling/v2 \
    CrossVersionObjectReference HorizontalPodAutoscalerBehavior \
    HorizontalPodAutoscalerStatus MetricSpec
add_external k8s.io/api/networking/v1 k8s.io/client-go/applyconfigurations/networking/v1 \
    IngressSpec
add_external k8s.io/api/admissionregistration/v1 k8s.io/client-go/applyconfigurations/admissionregistration/v1 \
    WebhookClientConfig

echo "Removing previously generated code"
find apis -name 'zz_generated.*.go' -not -path "${GENERATED}/*" -delete
find apis -name 'generated.pb.go' -delete -o -name 'generated.proto' -delete
rm -rf "${GENERATED:?}/openapi/zz_generated.openapi.go" \
    "${GENERATED}/clientset" "${GENERATED}/listers" \
    "${GENERATED}/informers" "${GENERATED}/applyconfiguration"

echo "Generating deepcopy functions"
go tool deepcopy-gen \
    --go-header-file "${BOILERPLATE}" \
    --output-file zz_generated.deepcopy.go \
    "${internal_pkgs[@]}" "${versioned_pkgs[@]}"

echo "Generating defaulters"
go tool defaulter-gen \
    --go-header-file "${BOILERPLATE}" \
    --output-file zz_generated.defaults.go \
    "${versioned_pkgs[@]}"

echo "Generating conversions"
# search.fedhq.io's spec embeds federation.fedhq.io's ClusterAffinity (the same
# Go types, internal and v1alpha1). conversion-gen sees only conversions written
# by hand (it parses without the zz_generated files), in the input packages and
# in the peers named here. While ClusterAffinity has none, it copies the field
# as it is, which it allows only because the internal and v1alpha1 types have
# the same memory layout (checked down to every nested field); if a change makes
# them differ, it writes code that does not compile until federation's v1alpha1
# gets a pair of hand-written Convert_ functions for ClusterAffinity (calling
# the generated autoConvert_ ones), which search's conversions then call.
# Naming federation's version package as a peer keeps that so when search's
# conversions are generated on their own.
go tool conversion-gen \
    --go-header-file "${BOILERPLATE}" \
    --output-file zz_generated.conversion.go \
    --extra-peer-dirs "${MODULE}/apis/federation/${VERSION}" \
    "${versioned_pkgs[@]}"

echo "Generating OpenAPI definitions (rule violations go to ${GENERATED}/openapi/api_violations.list)"
mkdir -p "${GENERATED}/openapi"
go tool openapi-gen \
    --go-header-file "${BOILERPLATE}" \
    --output-file zz_generated.openapi.go \
    --output-model-name-file zz_generated.model_name.go \
    --output-dir "${GENERATED}/openapi" \
    --output-pkg "${MODULE}/${GENERATED}/openapi" \
    --report-filename "${GENERATED}/openapi/api_violations.list" \
    "${readonly_args[@]}" \
    "${k8s_openapi_pkgs[@]}" "${versioned_pkgs[@]}"

echo "Generating apply configurations"
go tool applyconfiguration-gen \
    --go-header-file "${BOILERPLATE}" \
    --output-dir "${GENERATED}/applyconfiguration" \
    --output-pkg "${MODULE}/${GENERATED}/applyconfiguration" \
    --external-applyconfigurations "${external_applyconfigs}" \
    "${versioned_pkgs[@]}"

echo "Generating clientset"
go tool client-gen \
    --go-header-file "${BOILERPLATE}" \
    --output-dir "${GENERATED}/clientset" \
    --output-pkg "${MODULE}/${GENERATED}/clientset" \
    --clientset-name versioned \
    --apply-configuration-package "${MODULE}/${GENERATED}/applyconfiguration" \
    --input-base "${MODULE}/apis" \
    "${client_inputs[@]}"

echo "Generating listers"
go tool lister-gen \
    --go-header-file "${BOILERPLATE}" \
    --output-dir "${GENERATED}/listers" \
    --output-pkg "${MODULE}/${GENERATED}/listers" \
    "${versioned_pkgs[@]}"

echo "Generating informers"
go tool informer-gen \
    --go-header-file "${BOILERPLATE}" \
    --output-dir "${GENERATED}/informers" \
    --output-pkg "${MODULE}/${GENERATED}/informers" \
    --versioned-clientset-package "${MODULE}/${GENERATED}/clientset/versioned" \
    --listers-package "${MODULE}/${GENERATED}/listers" \
    "${versioned_pkgs[@]}"

echo "Generating protobuf (go-to-protobuf, with protoc: make codegen installs it)"
# go-to-protobuf adds the protobuf tags to the types, writes each version's
# generated.proto and has protoc (with the gogo plugin, then goimports) write
# generated.pb.go. It finds packages and their .proto imports under one source
# tree laid out by import path: a scratch one of links to this tree and to the
# module cache.
command -v protoc >/dev/null || { echo "protoc not found: run make codegen, which installs it" >&2; exit 1; }
PROTO_TREE="$(mktemp -d -t fed-protobuf.XXXXXX)"
trap 'rm -rf "${PROTO_TREE}"' EXIT
mkdir -p "${PROTO_TREE}/bin" "${PROTO_TREE}/src/github.com/fedhq" "${PROTO_TREE}/src/github.com/gogo" "${PROTO_TREE}/src/k8s.io"
go build -o "${PROTO_TREE}/bin/" k8s.io/code-generator/cmd/go-to-protobuf \
    k8s.io/code-generator/cmd/go-to-protobuf/protoc-gen-gogo golang.org/x/tools/cmd/goimports
ln -s "${ROOT}" "${PROTO_TREE}/src/${MODULE}"
ln -s "$(go list -m -f '{{.Dir}}' github.com/gogo/protobuf)" "${PROTO_TREE}/src/github.com/gogo/protobuf"
for m in api apimachinery apiextensions-apiserver; do
    ln -s "$(go list -m -f '{{.Dir}}' "k8s.io/${m}")" "${PROTO_TREE}/src/k8s.io/${m}"
done
# The Kubernetes packages whose types fed's embed: their protobuf exists already.
proto_peers=(
    k8s.io/apimachinery/pkg/util/intstr
    k8s.io/apimachinery/pkg/api/resource
    k8s.io/apimachinery/pkg/runtime/schema
    k8s.io/apimachinery/pkg/runtime
    k8s.io/apimachinery/pkg/apis/meta/v1
    k8s.io/api/core/v1
    k8s.io/api/autoscaling/v2
    k8s.io/api/networking/v1
    k8s.io/api/admissionregistration/v1
    k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1
)
PATH="${PROTO_TREE}/bin:${PATH}" go-to-protobuf \
    --go-header-file "${BOILERPLATE}" \
    --packages "$(IFS=,; echo "${versioned_pkgs[*]}")" \
    --apimachinery-packages "$(printf -- '-%s,' "${proto_peers[@]}" | sed 's/,$//')" \
    --proto-import "${PROTO_TREE}/src" \
    --proto-import "${PROTO_TREE}/src/github.com/gogo/protobuf/protobuf" \
    --output-dir "${PROTO_TREE}/src"
