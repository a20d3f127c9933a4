#!/usr/bin/env bash
# Installs what building and testing gloss needs, and only what is missing:
#   - Debian packages: git, gcc (cgo), pkg-config, libgit2-dev (libgit2 1.5,
#     which git2go v34 requires), nodejs + npm (the MCP client tests, the
#     web assets), man-db (tests/dist checks that `git gloss --help` shows
#     the man page), chromium + chromium-driver (the browser test of serve),
#     neovim (the editor test of git gloss lsp)
#   - Go >= 1.26, from the Go module proxy's toolchain zips if the machine
#     has none or an older one.
# Safe to run again; it prints what it installs.
set -euo pipefail

GO_VERSION=1.26.8
GO_DIR=${GLOSS_GO_DIR:-/usr/local/go}

log() { printf 'deps: %s\n' "$*" >&2; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		log "need root to run: $*"
		exit 1
	fi
}

missing=()
command -v git >/dev/null 2>&1 || missing+=(git)
command -v gcc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v curl >/dev/null 2>&1 || missing+=(curl ca-certificates)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
if ! pkg-config --exists 'libgit2 >= 1.5' 2>/dev/null || ! pkg-config --exists 'libgit2 < 1.6' 2>/dev/null; then
	missing+=(libgit2-dev)
fi
command -v man >/dev/null 2>&1 || missing+=(man-db)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
command -v nvim >/dev/null 2>&1 || missing+=(neovim)

if [ ${#missing[@]} -gt 0 ]; then
	log "installing Debian packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	as_root apt-get update -qq
	as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! pkg-config --exists 'libgit2 >= 1.5' || ! pkg-config --exists 'libgit2 < 1.6'; then
	log "libgit2 $(pkg-config --modversion libgit2 2>/dev/null || echo none) found; gloss needs libgit2 1.5 (Debian bookworm's libgit2-dev)"
	exit 1
fi

# go_ok reports whether a go binary is at least 1.26 (go.lsp.dev, the language server's protocol library, needs it).
go_ok() {
	local v
	v=$("$1" env GOVERSION 2>/dev/null | sed 's/^go//') || return 1
	[ -n "$v" ] || return 1
	local major minor
	major=${v%%.*}
	minor=${v#*.}
	minor=${minor%%.*}
	[ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 26 ]; }
}

if command -v go >/dev/null 2>&1 && go_ok go; then
	exit 0
fi
if [ -x "$GO_DIR/bin/go" ] && go_ok "$GO_DIR/bin/go"; then
	exit 0
fi

# The Go module proxy serves Go itself as golang.org/toolchain modules.
arch=$(uname -m)
case "$arch" in
	x86_64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) log "no Go toolchain for $arch"; exit 1 ;;
esac
proxy=${GOPROXY:-https://proxy.golang.org}
proxy=${proxy%%,*}
[ "$proxy" = direct ] || [ "$proxy" = off ] && proxy=https://proxy.golang.org
zip_url="$proxy/golang.org/toolchain/@v/v0.0.1-go$GO_VERSION.linux-$arch.zip"
log "installing Go $GO_VERSION into $GO_DIR from $zip_url"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL -o "$tmp/go.zip" "$zip_url"
unzip -q "$tmp/go.zip" -d "$tmp"
src="$tmp/golang.org/toolchain@v0.0.1-go$GO_VERSION.linux-$arch"
if [ -w "$(dirname "$GO_DIR")" ] || [ "$(id -u)" -eq 0 ]; then
	rm -rf "$GO_DIR"
	mv "$src" "$GO_DIR"
else
	as_root rm -rf "$GO_DIR"
	as_root mv "$src" "$GO_DIR"
fi
chmod +x "$GO_DIR"/bin/* "$GO_DIR"/pkg/tool/*/* 2>/dev/null || true
log "Go installed: $("$GO_DIR/bin/go" version)"
