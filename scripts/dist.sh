#!/usr/bin/env bash
# Builds the self-contained release archives of git-gloss:
#   dist/git-gloss_<version>_linux_<arch>.tar.gz  (git-gloss, its man page, README)
#   dist/SHA256SUMS
# The binary links libgit2 statically (scripts/build-libgit2.sh: Debian's
# libgit2 1.5 without network transports) and the C library statically too,
# so it needs no shared library at all: it starts in an empty root.
#
#   scripts/dist.sh [ARCH...]    default: the machine's architecture;
#                                 arm64 cross-compiles with Debian's toolchain
set -euo pipefail
cd "$(dirname "$0")/.."

version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=("$(go env GOARCH)")
out=dist
mkdir -p "$out"
log() { printf 'dist: %s\n' "$*" >&2; }

for arch in "${arches[@]}"; do
	prefix="$PWD/bin/libgit2-static/$arch"
	./scripts/build-libgit2.sh "$prefix" "$arch"
	env=(GOOS=linux GOARCH="$arch" CGO_ENABLED=1)
	case "$arch" in
		amd64) triplet=x86_64-linux-gnu ;;
		arm64) triplet=aarch64-linux-gnu ;;
	esac
	[ "$arch" = "$(go env GOHOSTARCH)" ] || env+=(CC="$triplet-gcc")
	stage=$(mktemp -d)
	name="git-gloss_${version}_linux_${arch}"
	mkdir -p "$stage/$name"
	log "building $name"
	# libgit2 and its three small dependencies come from the static build
	# and Debian's static libraries; osusergo and netgo keep glibc's NSS
	# (which cannot be linked statically) out of the binary.
	env "${env[@]}" CGO_LDFLAGS="-L$prefix/lib -lgit2 -lhttp_parser -lpcre2-8 -lz -lrt -lpthread" \
		go build -trimpath -tags osusergo,netgo \
		-ldflags "-s -w -X github.com/gloss-dev/gloss/buildinfo.Version=$version -linkmode external -extldflags -static" \
		-o "$stage/$name/git-gloss" ./cmd/git-gloss 2>"$stage/build.log" || { cat "$stage/build.log" >&2; exit 1; }
	# The linker warns that libgit2's getpwuid and getaddrinfo would need
	# glibc's shared NSS modules at run time; gloss never reaches either
	# (no network transports; HOME comes from the environment).
	grep -v -e 'statically linked applications requires at runtime' -e ': in function ' -e '^# ' "$stage/build.log" >&2 || true
	if [ "$arch" = "$(go env GOHOSTARCH)" ]; then
		"$stage/$name/git-gloss" man >"$stage/$name/git-gloss.1"
	else
		go run ./cmd/git-gloss man >"$stage/$name/git-gloss.1"
	fi
	cp README.md "$stage/$name/"
	tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
	rm -rf "$stage"
	log "wrote $out/$name.tar.gz"
done
(cd "$out" && sha256sum git-gloss_*.tar.gz >SHA256SUMS)
log "wrote $out/SHA256SUMS"
