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
METRICS_SERVER_LDFLAGS = -X k8s.io/client-go/pkg/version.gitVersion=$(shell cd e2e/devcluster/metricsserver && $(GO) list -m -f '{{.Version}}' sigs.k8s.io/metrics-server)
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

# The exec and attach pages' terminal: xterm.js and its fit addon under
# static/terminal, bundled the same way into the committed static/terminal.js,
# and xterm's stylesheet with the page's own into static/terminal.css.
TERMINAL_DIR  := static/terminal
TERMINAL_DEPS := $(TERMINAL_DIR)/node_modules/.installed
TERMINAL_JS_ARGS := terminal/src/main.js --bundle --format=esm --target=es2022 --minify \
	--external:./live/channel.js --log-level=warning \
	'--banner:js=/* Tabula pod terminal, built from static/terminal by make generate. Bundles xterm.js and @xterm/addon-fit (MIT, the xterm.js authors). */'
TERMINAL_CSS_ARGS := terminal/src/terminal.css --bundle --minify --log-level=warning \
	'--banner:css=/* Tabula pod terminal styles, built from static/terminal by make generate. Includes xterm.js'"'"'s css/xterm.css (MIT, the xterm.js authors). */'
BUNDLE_TERMINAL_JS  = cd static && $(GO) tool esbuild $(TERMINAL_JS_ARGS)
BUNDLE_TERMINAL_CSS = cd static && $(GO) tool esbuild $(TERMINAL_CSS_ARGS)

# The console's own modules, bundled per entry into the committed
# static/app.bundle.js and static/live.bundle.js, which pages load: one
# request each instead of a module graph of fourteen fetched, compiled and
# run before a short page's first frame (docs/performance.md). The sources
# stay served, and the live bundle leaves ./live/channel.js to the import
# map as the editor and terminal do.
MODULE_ARGS = --bundle --format=esm --target=es2022 --minify --log-level=warning
BUNDLE_APP  = cd static && $(GO) tool esbuild app.js $(MODULE_ARGS) \
	'--banner:js=/* Tabula, built from static/app.js by make generate. */'
BUNDLE_LIVE = cd static && $(GO) tool esbuild live.js $(MODULE_ARGS) --external:./live/channel.js \
	'--banner:js=/* Tabula live pages, built from static/live.js and static/live/ by make generate. */'

.PHONY: all build tabula devcluster generate editor terminal modules check check-generated fmt vet unit unit-js stress e2e test deps run bench clean

all: build

build: tabula devcluster

tabula:
	$(GO) build -o $(BIN)/tabula ./cmd/tabula

# The dev control plane is its own module, so k8s.io/kubernetes stays out of
# the console's dependency graph. kwok is a separate binary (see docs/devcluster.md).
# kubectl is built from the same module, so the tests that apply deploy/ use
# the control plane's own version and need no kubectl on the machine.
# metrics-server comes from a module of its own (e2e/devcluster/metricsserver),
# so that its newer dependencies do not move the control plane's; it is
# stamped with its version as its release build does.
devcluster:
	cd e2e/devcluster && $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o $(BIN)/devcluster . && $(GO) build -o $(BIN)/kwok sigs.k8s.io/kwok/cmd/kwok && \
	  $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o $(BIN)/kubectl k8s.io/kubernetes/cmd/kubectl
	cd e2e/devcluster/metricsserver && $(GO) build -ldflags "$(METRICS_SERVER_LDFLAGS)" -o $(BIN)/metrics-server sigs.k8s.io/metrics-server/cmd/metrics-server

generate: editor terminal modules
	$(GO) tool templ generate

modules:
	tmp=$$(mktemp); ($(BUNDLE_APP)) >"$$tmp" && mv "$$tmp" static/app.bundle.js && chmod 644 static/app.bundle.js
	tmp=$$(mktemp); ($(BUNDLE_LIVE)) >"$$tmp" && mv "$$tmp" static/live.bundle.js && chmod 644 static/live.bundle.js

# npm ci when node_modules is missing or older than the lockfile.
$(EDITOR_DEPS): $(EDITOR_DIR)/package.json $(EDITOR_DIR)/package-lock.json
	cd $(EDITOR_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

editor: $(EDITOR_DEPS)
	tmp=$$(mktemp); ($(BUNDLE_EDITOR)) >"$$tmp" && mv "$$tmp" static/editor.js && chmod 644 static/editor.js

$(TERMINAL_DEPS): $(TERMINAL_DIR)/package.json $(TERMINAL_DIR)/package-lock.json
	cd $(TERMINAL_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

terminal: $(TERMINAL_DEPS)
	tmp=$$(mktemp); ($(BUNDLE_TERMINAL_JS)) >"$$tmp" && mv "$$tmp" static/terminal.js && chmod 644 static/terminal.js
	tmp=$$(mktemp); ($(BUNDLE_TERMINAL_CSS)) >"$$tmp" && mv "$$tmp" static/terminal.css && chmod 644 static/terminal.css

check: check-generated fmt vet

# Fails when `templ generate` would change a committed *_templ.go, or the
# module, editor or terminal bundles are not what their sources (and
# lockfiles) build.
check-generated: $(EDITOR_DEPS) $(TERMINAL_DEPS)
	@stale=0; for f in $(TEMPL_FILES); do \
	  gen=$${f%.templ}_templ.go; \
	  if ! $(GO) tool templ generate -f "$$f" -stdout 2>/dev/null | cmp -s - "$$gen"; then \
	    echo "$$gen is out of date: run 'make generate' and commit it"; stale=1; \
	  fi; \
	done; \
	if ! ($(BUNDLE_APP)) | cmp -s - static/app.bundle.js; then \
	  echo "static/app.bundle.js is out of date: run 'make generate' and commit it"; stale=1; \
	fi; \
	if ! ($(BUNDLE_LIVE)) | cmp -s - static/live.bundle.js; then \
	  echo "static/live.bundle.js is out of date: run 'make generate' and commit it"; stale=1; \
	fi; \
	if ! ($(BUNDLE_EDITOR)) | cmp -s - static/editor.js; then \
	  echo "static/editor.js is out of date: run 'make generate' and commit it"; stale=1; \
	fi; \
	if ! ($(BUNDLE_TERMINAL_JS)) | cmp -s - static/terminal.js; then \
	  echo "static/terminal.js is out of date: run 'make generate' and commit it"; stale=1; \
	fi; \
	if ! ($(BUNDLE_TERMINAL_CSS)) | cmp -s - static/terminal.css; then \
	  echo "static/terminal.css is out of date: run 'make generate' and commit it"; stale=1; \
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

# The editor's pure functions (field paths, schema types, checks, drafts)
# and the terminal's (framing, Status messages, keys, the CSP shim, colours).
unit-js: $(EDITOR_DEPS) $(TERMINAL_DEPS)
	node --test --test-reporter=spec $(EDITOR_DIR)/test/*.test.js $(TERMINAL_DIR)/test/*.test.js

# The Go unit suite, STRESS_RUNS times over, while STRESS_HOGS busy threads
# keep the cores loaded, to find the tests that pass only on an idle machine.
# It prints each run, the failing tests' output, and the tests that failed
# by name; it fails if any run failed. See docs/testing.md.
STRESS_RUNS ?= 10
STRESS_HOGS ?= 2
STRESS_ARGS ?= -race -count=1 ./...
stress:
	$(GO) run ./e2e/stress -go $(GO) -runs $(STRESS_RUNS) -hogs $(STRESS_HOGS) -logs $(ARTIFACTS)/stress -- $(STRESS_ARGS)

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

# Renderer benchmarks, then, in one run against a dev control plane of 20,000
# pods (see e2e/bench): the list pages against the raw Table GETs, console
# memory at rest and under 5,000-row pages, first-row paint in Chromium, log
# throughput, live-list watch latency, console memory with 2,000 live
# clients, keystroke echo through the console's terminal against kubectl
# exec, the search across 200 CRDs, and relations (an object page with and
# without its Related section, a Deployment's map, a namespace map).
# BENCH_FLAGS passes flags, e.g. BENCH_FLAGS='-measure logs -pods 0'.
BENCH_FLAGS ?=
bench: build deps
	$(GO) test -run '^$$' -bench . -benchmem ./web/...
	PLAYWRIGHT_DRIVER_PATH=$(DRIVER_DIR) TABULA_BIN_DIR=$(BIN) $(GO) run ./e2e/bench $(BENCH_FLAGS)

clean:
	rm -rf $(BIN) $(ARTIFACTS)
