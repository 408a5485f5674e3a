# fed — see README.md. `make up` starts the local lab; `make test` runs every test.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# fed's module needs Go 1.27.3 (go.mod), which the go command fetches from the module proxy
# once; the lab's tools (kube-apiserver and the rest) are built with the machine's own Go.
export GOTOOLCHAIN := go1.27.3
# fed's binaries are static (its image has no C library), and so is everything else built
# from its module, so that make image and the tests share one build cache.
export CGO_ENABLED := 0
TOOLS_GO := GOTOOLCHAIN=local CGO_ENABLED=1 go

BIN := $(CURDIR)/bin
LAB_DIR := $(CURDIR)/.lab
# How long `make test` fuzzes the override engine with random objects and rules.
FUZZ_TIME ?= 20s

# Pins of the lab's binaries. Changing one rebuilds it; nothing else does.
K8S_VERSION := v1.32.4
KWOK_VERSION := v0.8.0
METRICS_SERVER_VERSION := v0.9.0
GOTESTSUM_VERSION := v1.13.0
HELM_VERSION := v4.3.1
HELM3_VERSION := v3.22.0
KREW_VERSION := v0.4.3

K8S_LDFLAGS := -X k8s.io/component-base/version.gitVersion=$(K8S_VERSION) \
	-X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(K8S_VERSION:v%=%))) \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(K8S_VERSION:v%=%))) \
	-X k8s.io/component-base/version.gitTreeState=clean
K8S_CMDS := kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet

# go test's time limit for each package; the end-to-end package takes 12-17 minutes
# (more on a slow machine with a cold build cache), so it gets room to spare.
TEST_TIMEOUT := 40m

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

## Binaries ---------------------------------------------------------------------------------

$(BIN)/.k8s-$(K8S_VERSION): hack/tools/go.mod hack/tools/go.sum
	@echo "building $(K8S_CMDS) $(K8S_VERSION) (a few minutes the first time)"
	@mkdir -p $(BIN)
	cd hack/tools && $(TOOLS_GO) build -o $(BIN)/ -ldflags "$(K8S_LDFLAGS)" $(addprefix k8s.io/kubernetes/cmd/,$(K8S_CMDS))
	@rm -f $(BIN)/.k8s-* && touch $@

$(BIN)/.kwok-$(KWOK_VERSION): hack/kwok-stages.sh
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(TOOLS_GO) install sigs.k8s.io/kwok/cmd/kwok@$(KWOK_VERSION)
	hack/kwok-stages.sh $(KWOK_VERSION) $(BIN)/kwok-stages.yaml
	@rm -f $(BIN)/.kwok-* && touch $@

$(BIN)/.metrics-server-$(METRICS_SERVER_VERSION):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(TOOLS_GO) install sigs.k8s.io/metrics-server/cmd/metrics-server@$(METRICS_SERVER_VERSION)
	@rm -f $(BIN)/.metrics-server-* && touch $@

$(BIN)/.gotestsum-$(GOTESTSUM_VERSION):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(TOOLS_GO) install gotest.tools/gotestsum@$(GOTESTSUM_VERSION)
	@rm -f $(BIN)/.gotestsum-* && touch $@

# Helm 4 and Helm 3 (bin/helm3/helm), for the readiness tests: helm install --wait against the fleet.
$(BIN)/.helm-$(HELM_VERSION):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(TOOLS_GO) install helm.sh/helm/v4/cmd/helm@$(HELM_VERSION)
	@rm -f $(BIN)/.helm-* && touch $@

$(BIN)/.helm3-$(HELM3_VERSION):
	@mkdir -p $(BIN)/helm3
	GOBIN=$(BIN)/helm3 $(TOOLS_GO) install helm.sh/helm/v3/cmd/helm@$(HELM3_VERSION)
	@rm -f $(BIN)/.helm3-* && touch $@

# krew (bin/kubectl-krew) and krew-index's manifest validator (bin/validate-krew-manifest), from
# the same module, for the release tests: kubectl krew install --manifest --archive of what make
# release builds. krew's version is stamped as krew's own release builds stamp it.
$(BIN)/.krew-$(KREW_VERSION):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(TOOLS_GO) install -ldflags "-X sigs.k8s.io/krew/internal/version.gitTag=$(KREW_VERSION)" \
		sigs.k8s.io/krew/cmd/krew@$(KREW_VERSION) sigs.k8s.io/krew/cmd/validate-krew-manifest@$(KREW_VERSION)
	mv -f $(BIN)/krew $(BIN)/kubectl-krew
	@rm -f $(BIN)/.krew-* && touch $@

$(BIN)/etcd:
	hack/install-etcd.sh $(BIN)

$(BIN)/protoc:
	hack/install-protoc.sh $(BIN)

.PHONY: lab-bin
lab-bin: $(BIN)/.k8s-$(K8S_VERSION) $(BIN)/.kwok-$(KWOK_VERSION) $(BIN)/.metrics-server-$(METRICS_SERVER_VERSION) $(BIN)/etcd
	go build -o $(BIN)/ ./test/lab/cmd/lab ./test/lab/cmd/custom-metrics-adapter

# The version kubectl fed reports (kubectl fed version): `git describe --tags`, else the file
# VERSION, else none ("dev"); `make release VERSION=v1.2.3` sets it.
VERSION ?= $(shell hack/release.sh --version)
PLUGIN_LDFLAGS = $(shell VERSION='$(VERSION)' hack/release.sh --ldflags)

.PHONY: fed-bin
fed-bin: ## build fed's commands (cmd/...) into bin/
	@mkdir -p $(BIN)
	go build -ldflags "$(PLUGIN_LDFLAGS)" -o $(BIN)/ ./cmd/...

# fed's container image (fed-apiserver, and fed-agent beside it), with the chart's default
# repository, built without a container engine or a registry (hack/image): the static
# binaries on no base image, run as the nonroot user 65532, written as an OCI archive that
# ctr images import, podman load and docker load (25+) read. The Dockerfile builds the same
# with an engine.
IMAGE ?= ghcr.io/fedhq/fed-apiserver
IMAGE_TAG ?= $(or $(VERSION),dev)
IMAGE_ARCHIVE := $(BIN)/fed-image.tar

.PHONY: image
image: ## build fed's image as an OCI archive, bin/fed-image.tar (no engine, no registry)
	@mkdir -p $(BIN)/image
	go build -ldflags "-s -w $(PLUGIN_LDFLAGS)" -o $(BIN)/image/ ./cmd/fed-apiserver ./cmd/fed-agent
	go run ./hack/image -o $(IMAGE_ARCHIVE) -name $(IMAGE):$(IMAGE_TAG) -version $(IMAGE_TAG) \
		$(BIN)/image/fed-apiserver $(BIN)/image/fed-agent
	@echo "$(IMAGE_ARCHIVE): $(IMAGE):$(IMAGE_TAG)"

# The real node (make up NODES=real; make test has one): containerd, runc and the CNI
# plugins from Debian's packages, and the sandbox image the node's pods need, a pause of the
# lab's own (no registry is reachable), built as fed's image is.
NODES ?= kwok
# Members of make up: member1..3, and light ones past them for the scale benches.
MEMBERS ?= 3
# fed-apiserver's storage in make up: badger or etcd3 (the lab's etcd); unset, the one the
# lab last ran with.
FED_STORAGE ?=

.PHONY: node-bin
node-bin: ## what the real node runs: containerd, runc, CNI plugins (Debian) and the lab's pause image
	hack/install-node.sh $(BIN)
	@mkdir -p $(BIN)/image
	go build -ldflags "-s -w" -o $(BIN)/image/ ./test/lab/cmd/pause
	go run ./hack/image -o $(BIN)/lab-pause.tar -name fed.lab/pause:1 -ca-certs= $(BIN)/image/pause

.PHONY: release
release: ## kubectl fed's archives for linux/darwin x amd64/arm64 and sha256sums in dist/, krew-manifest.yaml
	VERSION='$(VERSION)' hack/release.sh

.PHONY: bin
bin: lab-bin fed-bin ## build the lab's binaries and fed's commands into bin/

## The lab ----------------------------------------------------------------------------------

.PHONY: up
up: bin $(if $(filter real,$(NODES)),node-bin image) ## start the local lab (host + member1..3 on loopback; NODES=real adds a real node in an install host, FED_STORAGE=etcd3 stores the fleet in etcd); safe to repeat
	$(BIN)/lab up --dir $(LAB_DIR) --bin $(BIN) --nodes $(NODES) --members $(MEMBERS) $(if $(FED_STORAGE),--fed-storage $(FED_STORAGE))

.PHONY: down
down: ## stop every process the lab started
	@if [ -x $(BIN)/lab ]; then $(BIN)/lab down --dir $(LAB_DIR) --bin $(BIN); else go run ./test/lab/cmd/lab down --dir $(LAB_DIR) --bin $(BIN); fi

.PHONY: status
status: ## show which lab processes run
	@go run ./test/lab/cmd/lab status --dir $(LAB_DIR) --bin $(BIN)

.PHONY: clean-lab
clean-lab: down ## stop the lab and delete its state (.lab/)
	rm -rf $(LAB_DIR)

## Checks -----------------------------------------------------------------------------------

.PHONY: codegen
codegen: $(BIN)/protoc ## regenerate deepcopy, defaulters, conversions, OpenAPI, protobuf and clients of apis/
	PATH=$(BIN):$$PATH hack/update-codegen.sh

.PHONY: manifests
manifests: $(BIN)/.helm-$(HELM_VERSION) ## render artifacts/deploy from the Helm chart artifacts/charts/fed (the one source)
	HELM=$(BIN)/helm hack/update-manifests.sh

.PHONY: verify
verify: $(BIN)/.helm-$(HELM_VERSION) $(BIN)/protoc ## gofmt, go vet, generated code and artifacts/deploy up to date
	@out=$$(gofmt -l $$(git ls-files '*.go') $$(git ls-files --others --exclude-standard '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...
	PATH=$(BIN):$$PATH hack/verify-codegen.sh
	HELM=$(BIN)/helm hack/verify-manifests.sh

.PHONY: test
test: bin node-bin image $(BIN)/.gotestsum-$(GOTESTSUM_VERSION) $(BIN)/.helm-$(HELM_VERSION) $(BIN)/.helm3-$(HELM3_VERSION) $(BIN)/.krew-$(KREW_VERSION) verify ## every test: unit, storage conformance, end to end on the lab
	rc=0; LAB_NODES=real $(BIN)/gotestsum --format pkgname-and-test-fails --format-hide-empty-pkg --jsonfile $(BIN)/test.json -- -timeout $(TEST_TIMEOUT) -count=1 -parallel 4 ./... || rc=$$?; \
		echo "== the tests that took over 30s (every event of the run: $(BIN)/test.json)"; \
		$(BIN)/gotestsum tool slowest --jsonfile $(BIN)/test.json --threshold 30s; exit $$rc
	@echo "== fuzzing the override engine for $(FUZZ_TIME)"
	go test -run '^$$' -fuzz '^FuzzApply$$' -fuzztime $(FUZZ_TIME) ./controllers/override/

# make soak: SOAK is how long, SEED the seed (a random one when unset, printed).
SOAK ?= 10m
SEED ?= $(shell od -An -N3 -tu4 /dev/urandom | tr -d ' ')

.PHONY: soak
soak: bin ## random operations under injected faults on the lab, checked after each quiet period (SOAK=10m SEED=n)
	SOAK=$(SOAK) SEED=$(SEED) go test -run '^TestSoak$$' -count=1 -v -timeout 4h ./test/e2e/

.PHONY: bench-scale
bench-scale: bin ## fed at 3, 10 and 30 members (make up MEMBERS=30 first), and 100 and 1,000 simulated
	go test -run '^$$' -bench 'Scale(Members|Fleet|Simulated)' -benchtime 1x -timeout 120m ./test/e2e/

.PHONY: bench
bench: bin ## benchmarks, each against a baseline measured in the same run
	@echo "== storage: Badger against k8s.io/apiserver's etcd3 store (etcd without fsync, like Badger's default)"
	go test -run '^$$' -bench . -benchtime 2000x -benchmem ./apiserver/storage/badger/ | awk -f hack/bench-ratio.awk
	@echo "== search cache: 1,000,000 pods written through the reflectors, then LIST of 10k, a page of 500, a selector over all (targets: RSS under 1 GiB, LIST of 10k under 200 ms (Karmada: 2.49 s), a page of 500 under 20 ms)"
	go test -run '^$$' -bench Cache1MPods -benchtime 1x -timeout 20m ./apiserver/search/
	@echo "== kubectl fed join until the Cluster is Ready (Karmada's published figure for its join: 4.1-4.4 s, 5.4 s median; fed's target: under 1 s)"
	go test -run '^$$' -bench JoinToReady -benchtime 5x ./test/e2e/
	@echo "== kubectl fed get pods over 3 members with 1,000 pods each, from the search cache and from the members, against a serial kubectl get pods per member (target: the cache at 3 times the serial loop's speed)"
	go test -run '^$$' -bench FedGetPods -benchtime 5x ./test/e2e/
	@echo "== search: a Deployment created in (deleted from) member3 until a watch of the search cache through the host has it (says it is gone) (target: 2 s each)"
	go test -run '^$$' -bench SearchFreshness -benchtime 20x ./test/e2e/
	@echo "== fleet metrics: PodMetrics of three members through the host, cold and cached, and a usage change to the new replica count under a FederatedHPA (targets: cached p99 under 50 ms, cold p99 under 300 ms, rescale within one sync period + 5 s)"
	go test -run '^$$' -bench FleetMetrics -benchtime 1x -timeout 10m ./test/e2e/
	@echo "== scheduler: bindings scheduled per second over 100 simulated clusters by the pure algorithm (Karmada publishes about 20/s; fed's target: over 2,000/s)"
	go test -run '^$$' -bench '^BenchmarkSchedule$$' -benchtime 2000x -benchmem ./controllers/scheduler/
	@echo "== scheduler: the same end to end, 2,000 bindings created until all are Scheduled through a fed-apiserver of their own, with a FederatedResourceQuota in their namespace and without (target: over 2,000/s)"
	go test -run '^$$' -bench SchedulerEndToEnd -benchtime 1x ./test/e2e/
	@echo "== propagation: 1,000 Deployments (replicas 0), then one kind-only policy Duplicated to 3 members, until all 3,000 member objects exist, beside the same Deployments applied straight to the members and the CPU each part of the lab used; then both again with the members' controller managers stopped (Karmada on a lab of this shape: 132 s, 23 objects/s; targets: fed within 2 times the direct apply with the controllers stopped, p99 under 5 s per object)"
	go test -run '^$$' -bench Propagation1000 -benchtime 1x -timeout 30m ./test/e2e/
	@echo "== propagation: one Deployment to 3 idle members, from its create in the fleet until the members' watches have it (target: under 150 ms)"
	go test -run '^$$' -bench PropagationOneTemplate -benchtime 20x -timeout 10m ./test/e2e/
	@echo "== propagation: fed-apiserver's memory with 10,000 Deployments propagated to 3 members, the members' controller managers stopped (target: RSS under 500 MB)"
	go test -run '^$$' -bench PropagationMemory -benchtime 1x -timeout 60m ./test/e2e/
	@echo "== failover: member2's kube-apiserver stopped under a Deployment Divided 2/2 over member1 and member2, until member2 is not Ready, tainted NoExecute (the lab's --failover-eviction-timeout is 10s), and all 4 replicas are ready in member1 (the issue: replicas elsewhere within tolerationSeconds + 30 s)"
	go test -run '^$$' -bench '^BenchmarkFailover$$' -benchtime 3x -timeout 15m ./test/e2e/
	@echo "== failover while fed deletes 12,000 member objects (4,000 ConfigMaps Duplicated to 3 members, deleted at once just before member2 stops), beside the same failover with nothing else to do, in the same run"
	go test -run '^$$' -bench '^BenchmarkFailoverUnderDeletion$$' -benchtime 1x -timeout 15m ./test/e2e/
	@echo "== failover with an eviction rate: 12 ConfigMaps on member1 and member2, member2 stopped, from its NoExecute taint until each binding has left it, without --resource-eviction-rate and with it at 2 a second, in the same run (the issue: the limit visible in the timing)"
	go test -run '^$$' -bench '^BenchmarkEvictionRate$$' -benchtime 1x -timeout 15m ./test/e2e/
	@echo "== multi-cluster services: a provider's new endpoint (a pod of nginx's in member1) until a consumer's (member3's) imported EndpointSlice has it, from watches on both (target: the issue's removal within 5 s)"
	go test -run '^$$' -bench MCSEndpointSync -benchtime 20x ./test/e2e/
	@echo "== pull mode: member3 unjoined and registered in pull mode, kubectl fed register until its Cluster is Ready; then one Deployment to the 3 members, member3 through its agent beside member1 and member2 pushed by fed-apiserver"
	go test -run '^$$' -bench PullMode -benchtime 20x -timeout 15m ./test/e2e/

.PHONY: test-unit
test-unit: ## the tests that need no lab
	go test -short ./...
