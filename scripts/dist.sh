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
#
# The static libgit2 is built once per architecture into bin/libgit2-static
# and reused; Go's build cache does the rest, so a second run takes well
# under a minute. GLOSS_DIST_YES=1 (make dist YES=1) consents to the system
# changes the first libgit2 build lists (where no terminal can ask).
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
	log "building $name (go build, static link)"
	started=$SECONDS
	# libgit2 and its three small dependencies come from the static build
	# and Debian's static libraries; osusergo and netgo keep glibc's NSS
	# (which cannot be linked statically) out of the binary. It runs in
	# the background so that a long link says it is still going.
	env "${env[@]}" CGO_LDFLAGS="-L$prefix/lib -lgit2 -lhttp_parser -lpcre2-8 -lz -lrt -lpthread" \
		go build -trimpath -tags osusergo,netgo \
		-ldflags "-s -w -X github.com/gloss-dev/gloss/buildinfo.Version=$version -linkmode external -extldflags -static" \
		-o "$stage/$name/git-gloss" ./cmd/git-gloss 2>"$stage/build.log" &
	build=$!
	while kill -0 "$build" 2>/dev/null; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do sleep 1.5; kill -0 "$build" 2>/dev/null || break; done
		kill -0 "$build" 2>/dev/null && log "still building $name ($((SECONDS - started)) s)"
	done
	wait "$build" || { cat "$stage/build.log" >&2; exit 1; }
	log "built $name in $((SECONDS - started)) s"
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
