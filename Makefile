# Tabula. `make run` starts a seeded dev control plane and the console;
# `make test` runs every check and test, Playwright included.
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go

BIN        := $(CURDIR)/bin
DRIVER_DIR := $(CURDIR)/.cache/playwright-driver
ARTIFACTS  := $(CURDIR)/e2e/test-artifacts
DATA_DIR   ?= $(CURDIR)/.devcluster
LISTEN     ?= 127.0.0.1:8080
# Stamp the Kubernetes version into the components, as the release build does,
# so /version and kubectl report v1.36.x rather than v0.0.0-master.
KUBE_VERSION = $(shell cd e2e/devcluster && $(GO) list -m -f '{{.Version}}' k8s.io/kubernetes)
KUBE_LDFLAGS = -X k8s.io/component-base/version.gitVersion=$(KUBE_VERSION) \
	-X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(KUBE_VERSION:v%=%))) \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_VERSION))) \
	-X k8s.io/component-base/version.gitTreeState=clean
TEMPL_FILES = $(shell find . -name '*.templ' -not -path './e2e/devcluster/*' -not -path './.cache/*')

# The edit pages' YAML editor: CodeMirror 6 and its npm sources under
# static/editor, bundled by esbuild (a go tool) into the committed
# static/editor.js. The bundle leaves ./live/channel.js to the page's import
# map, so the console ships one copy of its live protocol.
EDITOR_DIR   := static/editor
EDITOR_DEPS  := $(EDITOR_DIR)/node_modules/.installed
ESBUILD_ARGS := editor/src/main.js --bundle --format=esm --target=es2022 --minify \
	--external:./live/channel.js --log-level=warning \
	'--banner:js=/* Tabula YAML editor, built from static/editor by make generate. Bundles CodeMirror 6 and Lezer (MIT, Marijn Haverbeke and others) and yaml (ISC, Eemeli Aro). */'
# esbuild writes to stdout, run from static/, so the external import stays
# "./live/channel.js" and a check build compares byte for byte.
BUNDLE_EDITOR = cd static && $(GO) tool esbuild $(ESBUILD_ARGS)

.PHONY: all build tabula devcluster generate editor check check-generated fmt vet unit unit-js e2e test deps run bench clean

all: build

build: tabula devcluster

tabula:
	$(GO) build -o $(BIN)/tabula ./cmd/tabula

# The dev control plane is its own module, so k8s.io/kubernetes stays out of
# the console's dependency graph. kwok is a separate binary (see docs/devcluster.md).
# kubectl is built from the same module, so the tests that apply deploy/ use
# the control plane's own version and need no kubectl on the machine.
devcluster:
	cd e2e/devcluster && $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o $(BIN)/devcluster . && $(GO) build -o $(BIN)/kwok sigs.k8s.io/kwok/cmd/kwok && \
	  $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o $(BIN)/kubectl k8s.io/kubernetes/cmd/kubectl

generate: editor
	$(GO) tool templ generate

# npm ci when node_modules is missing or older than the lockfile.
$(EDITOR_DEPS): $(EDITOR_DIR)/package.json $(EDITOR_DIR)/package-lock.json
	cd $(EDITOR_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

editor: $(EDITOR_DEPS)
	tmp=$$(mktemp); ($(BUNDLE_EDITOR)) >"$$tmp" && mv "$$tmp" static/editor.js && chmod 644 static/editor.js

check: check-generated fmt vet

# Fails when `templ generate` would change a committed *_templ.go, or the
# editor bundle is not what its sources and lockfile build.
check-generated: $(EDITOR_DEPS)
	@stale=0; for f in $(TEMPL_FILES); do \
	  gen=$${f%.templ}_templ.go; \
	  if ! $(GO) tool templ generate -f "$$f" -stdout 2>/dev/null | cmp -s - "$$gen"; then \
	    echo "$$gen is out of date: run 'make generate' and commit it"; stale=1; \
	  fi; \
	done; \
	if ! ($(BUNDLE_EDITOR)) | cmp -s - static/editor.js; then \
	  echo "static/editor.js is out of date: run 'make generate' and commit it"; stale=1; \
	fi; exit $$stale

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags e2e ./e2e/...
	cd e2e/devcluster && $(GO) vet ./...

# Every Go benchmark runs once too, so a broken one fails CI rather than rot.
unit: unit-js
	$(GO) test -race -count=1 ./...
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

# The editor's pure functions (field paths, schema types, checks, drafts).
unit-js: $(EDITOR_DEPS)
	node --test --test-reporter=spec $(EDITOR_DIR)/test/*.test.js

deps:
	e2e/install-deps.sh $(DRIVER_DIR)

# Integration and Playwright tests against a fresh dev control plane.
e2e: build deps
	mkdir -p $(ARTIFACTS)
	PLAYWRIGHT_DRIVER_PATH=$(DRIVER_DIR) TABULA_BIN_DIR=$(BIN) TABULA_E2E_ARTIFACTS=$(ARTIFACTS) \
	  $(GO) test -tags e2e -count=1 -timeout 20m -v ./e2e/ 2>&1 | tee $(ARTIFACTS)/e2e.log

test: check unit e2e

run: build
	e2e/run-dev.sh $(BIN) $(DATA_DIR) $(LISTEN)

# Renderer benchmarks, then, in one run against a dev control plane (see
# e2e/bench): the console's list page for 5,000 pods against the raw Table GET
# it makes, log throughput, live-list watch latency, and console memory with
# 500 live clients. BENCH_FLAGS passes flags, e.g. BENCH_FLAGS='-measure logs'.
BENCH_FLAGS ?=
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./web/...
	TABULA_BIN_DIR=$(BIN) $(GO) run ./e2e/bench $(BENCH_FLAGS)

clean:
	rm -rf $(BIN) $(ARTIFACTS)
