# gloss — the two commands a fresh machine needs are `make demo` and
# `make test`; both install what is missing first (scripts/deps.sh).

SHELL := /bin/bash
# Go installed by scripts/deps.sh lands in /usr/local/go.
export PATH := /usr/local/go/bin:$(HOME)/go/bin:$(PATH)

BIN      := $(CURDIR)/bin/git-gloss
VERSION  := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X github.com/gloss-dev/gloss/buildinfo.Version=$(VERSION)
STATICCHECK_VERSION := v0.8.2

.PHONY: all deps build demo test lint bench githooks clean

all: build

deps:
	@./scripts/deps.sh

build: deps githooks
	go build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/git-gloss

# The main job: a real repository, gloss set up, hooked commits, reads
# through the CLI and through MCP.
demo: build
	@cd tests/mcp-client && npm ci --no-audit --no-fund --silent
	@PATH=$(CURDIR)/bin:$$PATH ./scripts/demo.sh

# The whole suite: lint, unit and integration tests (real git, real hooks,
# the MCP server driven raw and by the TypeScript SDK client), the Noma
# conformance corpus, and every benchmark once so they keep working.
#
# The integration tests run a coverage build of the binary (go build
# -cover) with GOCOVERDIR set, and the line at the end says how much of
# gloss the whole suite exercised through the real binary.
COVER_BIN := $(CURDIR)/bin/cover/git-gloss
COVER_DIR := $(CURDIR)/bin/cover/data

test: build lint
	cd tests/mcp-client && npm ci --no-audit --no-fund --silent
	go build -cover -coverpkg=./... -ldflags "$(LDFLAGS)" -o $(COVER_BIN) ./cmd/git-gloss
	rm -rf $(COVER_DIR) && mkdir -p $(COVER_DIR)
	GOCOVERDIR=$(COVER_DIR) GLOSS_TEST_BINARY=$(COVER_BIN) go test -count=1 -timeout 15m ./...
	GLOSS_TEST_BINARY=$(BIN) go test -count=1 -race -timeout 15m ./gitops/ ./notes/ ./mcp/ ./hooks/ ./tasks/ ./noma/ ./notebook/
	GLOSS_TEST_BINARY=$(BIN) go test -count=1 -run '^$$' -bench . -benchtime 1x ./...
	@go tool covdata textfmt -i $(COVER_DIR) -o $(COVER_DIR)/profile.txt
	@printf 'integration coverage of the binary (statements the suite ran in git-gloss processes): %s\n' \
		"$$(go tool cover -func $(COVER_DIR)/profile.txt | awk '/^total:/ { print $$NF }')"

lint: deps
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
		if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	@command -v staticcheck >/dev/null 2>&1 || go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	staticcheck ./...

# Timings against the git CLI on a long generated history; with REPO=path
# (a clone of junegunn/fzf), the read recipe of the README's Speed section
# on a throwaway clone of it instead.
# The generated 100,000-commit history is made once (minutes) and kept in
# the temp dir. REPO= adds a real repository: a clone of fzf at 956562da or
# of git/git at 3f664917 (docs/speed.md).
bench: build
	go test -run '^$$' -bench . -benchtime 20x ./...
	go run ./bench/cmd/compare
	go run ./bench/cmd/recipe -generated
	$(if $(REPO),go run ./bench/cmd/recipe -src $(REPO))

# gloss dogfoods itself: its own clone runs the hook shims in .githooks.
githooks:
	@git config core.hooksPath .githooks 2>/dev/null || true

clean:
	rm -rf bin demo-repo
