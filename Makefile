# gloss — the two commands a fresh machine needs are `make demo` and
# `make test`; both install what is missing first (scripts/deps.sh).

SHELL := /bin/bash
# Go installed by scripts/deps.sh lands in /usr/local/go.
export PATH := /usr/local/go/bin:$(HOME)/go/bin:$(PATH)

BIN      := $(CURDIR)/bin/git-gloss
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X github.com/gloss-dev/gloss/buildinfo.Version=$(VERSION)
STATICCHECK_VERSION := v0.8.2

.PHONY: all deps build web-assets demo test lint bench githooks clean dist install vscode

all: build

deps:
	@./scripts/deps.sh

build: deps githooks web-assets
	go build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/git-gloss

# JavaScript for git gloss serve comes from the npm registry through
# web/js/package-lock.json, never copied into the repository: mermaid,
# highlight.js, marked and DOMPurify are built into the embedded assets
# here (a binary built without them shows diagrams and markdown as source
# and code uncoloured); axe-core stays in node_modules for the browser
# test. Highlighting and markdown are in the browser so that no Go
# highlighter's or markdown parser's package init (chroma's: ~10 ms,
# goldmark's: ~1 ms) runs on every hook.
WEB_VENDOR := web/assets/vendor/mermaid.min.js web/assets/vendor/highlight.min.js \
	web/assets/vendor/marked.umd.js web/assets/vendor/purify.min.js
web-assets: $(WEB_VENDOR)
$(WEB_VENDOR) &: web/js/package-lock.json
	@if (cd web/js && npm ci --no-audit --no-fund --silent); then \
		cp web/js/node_modules/mermaid/dist/mermaid.min.js web/assets/vendor/mermaid.min.js; \
		cp web/js/node_modules/@highlightjs/cdn-assets/highlight.min.js web/assets/vendor/highlight.min.js; \
		cp web/js/node_modules/marked/lib/marked.umd.js web/assets/vendor/marked.umd.js; \
		cp web/js/node_modules/dompurify/dist/purify.min.js web/assets/vendor/purify.min.js; \
	else \
		echo "web-assets: npm ci failed; building without mermaid, highlight.js, marked and DOMPurify (serve shows diagrams and markdown as source, code uncoloured)" >&2; \
	fi

# The main job: a real repository, gloss set up, hooked commits, reads
# through the CLI and through MCP.
demo: build
	@cd tests/mcp-client && npm ci --no-audit --no-fund --silent
	@PATH=$(CURDIR)/bin:$$PATH ./scripts/demo.sh

# The whole suite: lint, unit and integration tests (real git, real hooks,
# the MCP server driven raw and by the TypeScript SDK client, the real
# agent CLIs against scripted model APIs), the Noma conformance corpus, the
# release archive (tests/dist), and every benchmark once so they keep
# working: in the same test binaries as the tests, so nothing links twice.
#
# The integration tests run a coverage build of the binary (go build
# -cover) with GOCOVERDIR set, and the line at the end says how much of
# gloss the whole suite exercised through the real binary.
COVER_BIN := $(CURDIR)/bin/cover/git-gloss
COVER_DIR := $(CURDIR)/bin/cover/data
# The tests' binaries have the test switches (fault injection, the MCP
# debug tools, profiling: the glosstest tag); the release has none.
TEST_TAGS := glosstest
TEST_BIN  := $(CURDIR)/bin/test/git-gloss
# tests/dist checks the release archive of this machine's architecture.
DIST_ARCHIVE = $(CURDIR)/dist/git-gloss_$(VERSION)_linux_$(shell go env GOARCH).tar.gz

test: build lint
	cd tests/mcp-client && npm ci --no-audit --no-fund --silent
	cd web/js && npm ci --no-audit --no-fund --silent
	cd tests/agent-e2e && npm ci --no-audit --no-fund --silent
	cd tests/ci-lint && npm ci --no-audit --no-fund --silent
	cd tests/lsp-client && npm ci --no-audit --no-fund --silent
	cd editors/vscode && npm ci --no-audit --no-fund --silent
	go build -cover -coverpkg=./... -tags $(TEST_TAGS) -ldflags "$(LDFLAGS)" -o $(COVER_BIN) ./cmd/git-gloss
	go build -tags $(TEST_TAGS) -ldflags "$(LDFLAGS)" -o $(TEST_BIN) ./cmd/git-gloss
	rm -rf $(COVER_DIR) && mkdir -p $(COVER_DIR)
	VERSION=$(VERSION) GLOSS_DIST_YES=1 ./scripts/dist.sh
	GOCOVERDIR=$(COVER_DIR) GLOSS_TEST_BINARY=$(COVER_BIN) GLOSS_DIST_ARCHIVE=$(DIST_ARCHIVE) \
		go test -tags $(TEST_TAGS) -count=1 -timeout 15m -bench . -benchtime 1x ./...
	GLOSS_TEST_BINARY=$(TEST_BIN) go test -tags $(TEST_TAGS) -count=1 -race -timeout 15m ./gitops/ ./notes/ ./mcp/ ./hooks/ ./tasks/ ./noma/ ./notebook/
	@go tool covdata textfmt -i $(COVER_DIR) -o $(COVER_DIR)/profile.txt
	@printf 'integration coverage of the binary (statements the suite ran in git-gloss processes): %s\n' \
		"$$(go tool cover -func $(COVER_DIR)/profile.txt | awk '/^total:/ { print $$NF }')"

lint: deps
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
		if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go vet -tags glosstest ./cmd/... ./fault/ ./guard/ ./mcp/
	@command -v staticcheck >/dev/null 2>&1 || go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	staticcheck ./...

# Timings against the git CLI on a long generated history; with REPO=path
# (a clone of junegunn/fzf), the read recipe of docs/speed.md
# on a throwaway clone of it instead.
# The generated 100,000-commit history is made once (minutes) and kept in
# the temp dir. REPO= adds real repositories: clones of fzf at 956562da
# and of git/git at 3f664917 (docs/speed.md), REPO="<fzf> <git/git>" for
# both. Each recipe prints, in one run beside git: the process start, a read
# during the decisions index's build, the first and the warm `read
# --anchor`, what the hooks add to a 10-file commit after a hooked and after
# an unhooked commit, and gloss_read's p50 over 300 calls in one MCP
# session; with two repositories the run ends with them side by side.
# DELIVERY="<clone of fzf> <clone of flask>" adds the delivery benchmark of
# decisions on real history (docs/speed.md#decisions-reach-the-agent).
bench: build
	go test -run '^$$' -bench . -benchtime 20x ./...
	go run ./bench/cmd/compare
	go run ./bench/cmd/recipe -generated
	$(if $(REPO),go run ./bench/cmd/recipe $(foreach r,$(REPO),-src $(r)))
	$(if $(DELIVERY),go run ./bench/cmd/delivery $(foreach r,$(DELIVERY),-src $(r)))

# Self-contained release archives in dist/ (static libgit2 and C library,
# the web view's scripts built in, a man page, SHA256SUMS); ARCHES="amd64
# arm64" cross-compiles arm64 too.
# The first run builds a static libgit2 per architecture (minutes; it asks
# before installing what that needs, YES=1 consents where nothing can ask);
# later runs reuse it.
dist: deps web-assets
	$(if $(YES),GLOSS_DIST_YES=1) ./scripts/dist.sh $(ARCHES)

# Installs git-gloss and its man page (PREFIX defaults to /usr/local for
# root, ~/.local otherwise): from dist/ when an archive is there, else
# from a source build.
install:
	./scripts/install.sh $(if $(PREFIX),--prefix $(PREFIX))

# The VS Code extension (editors/vscode): built from its lockfile and
# packaged by @vscode/vsce into editors/vscode/gloss.vsix, to install with
# code --install-extension. make test builds and checks it too
# (lsp/vscode_test.go).
vscode: deps
	cd editors/vscode && npm ci --no-audit --no-fund --silent && npm run --silent package

# gloss dogfoods itself: its own clone runs the hook shims in .githooks.
githooks:
	@git config core.hooksPath .githooks 2>/dev/null || true

clean:
	rm -rf bin demo-repo dist
