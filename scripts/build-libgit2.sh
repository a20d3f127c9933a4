#!/usr/bin/env bash
# Builds a static libgit2 1.5 for a self-contained git-gloss, from Debian's
# own source package (the same libgit2 the design card names), with the
# network transports gloss never uses left out: no HTTPS, SSH, GSSAPI or
# NTLM. gloss only reads and writes the local object database; fetch and
# push go through the git CLI. The result has no dependency beyond zlib,
# pcre2 and http-parser, whose static libraries Debian ships.
#
#   scripts/build-libgit2.sh PREFIX [ARCH]
#
# ARCH is a Go architecture (amd64, arm64); a foreign one cross-compiles
# with Debian's cross toolchain and the foreign -dev packages (multiarch).
# Safe to run again: a PREFIX that already holds the build is kept, so
# only the first `make dist` pays for it. What it needs from the system
# (cmake, dpkg-dev, the static -dev packages; for a foreign ARCH its dpkg
# architecture and cross compiler) it lists, with how to undo it, and
# installs only after a yes: from the terminal, or GLOSS_DIST_YES=1 where
# there is none. It never edits the package sources: Debian's source
# package is fetched through a private apt state.
set -euo pipefail

prefix=${1:?usage: build-libgit2.sh PREFIX [ARCH]}
arch=${2:-$(go env GOARCH 2>/dev/null || echo amd64)}
log() { printf 'libgit2: %s\n' "$*" >&2; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
		log "need root to run: $*"; exit 1
	fi
}

stamp="$prefix/.gloss-libgit2-$arch"
if [ -f "$stamp" ] && [ -f "$prefix/lib/libgit2.a" ]; then
	log "reusing the static libgit2 for $arch in ${prefix#"$PWD"/}"
	exit 0
fi

case "$arch" in
	amd64) triplet=x86_64-linux-gnu deb_arch=amd64 ;;
	arm64) triplet=aarch64-linux-gnu deb_arch=arm64 ;;
	*) log "unsupported architecture $arch"; exit 1 ;;
esac
native=$(dpkg --print-architecture)

export DEBIAN_FRONTEND=noninteractive
need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v dpkg-source >/dev/null 2>&1 || need+=(dpkg-dev)
command -v xz >/dev/null 2>&1 || need+=(xz-utils)
add_arch=""
if [ "$deb_arch" = "$native" ]; then
	# Qualified, because with a foreign architecture's packages installed
	# beside them `dpkg -s zlib1g-dev` is ambiguous and would reinstall.
	dev=("zlib1g-dev:$native" "libpcre2-dev:$native" "libhttp-parser-dev:$native")
else
	dpkg --print-foreign-architectures | grep -qx "$deb_arch" || add_arch=$deb_arch
	command -v "$triplet-gcc" >/dev/null 2>&1 || need+=("gcc-$triplet")
	# zlib, pcre2 and libc install beside the machine's own (Multi-Arch:
	# same); http-parser's -dev package does not, and installing it would
	# remove the machine's own (and libgit2-dev with it), so it is only
	# unpacked into the build below.
	dev=("zlib1g-dev:$deb_arch" "libpcre2-dev:$deb_arch" "libc6-dev:$deb_arch")
fi
for p in "${dev[@]}"; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done

# Changing the system is asked for, never assumed: what will change, how
# to take it back, and a yes — from the terminal, or GLOSS_DIST_YES=1 where
# there is none (CI). The package sources are never edited: Debian's
# source package comes through a private apt state below.
if [ ${#need[@]} -gt 0 ] || [ -n "$add_arch" ]; then
	log "building libgit2 for $arch needs changes to this system:"
	[ -z "$add_arch" ] || log "  dpkg --add-architecture $add_arch   (undo: apt-get purge the :$add_arch packages, then dpkg --remove-architecture $add_arch)"
	[ ${#need[@]} -eq 0 ] || log "  apt-get install ${need[*]}   (undo: apt-get purge ${need[*]})"
	if [ "${GLOSS_DIST_YES:-}" != 1 ]; then
		if [ -t 0 ] && [ -t 2 ]; then
			printf 'libgit2: go ahead? [y/N] ' >&2
			read -r answer
			case "$answer" in y | Y | yes) ;; *) log "nothing changed"; exit 1 ;; esac
		else
			log "no terminal to ask: set GLOSS_DIST_YES=1 (make dist YES=1) to allow these changes"
			exit 1
		fi
	fi
	[ -z "$add_arch" ] || as_root dpkg --add-architecture "$add_arch"
	log "installing ${need[*]}"
	as_root apt-get update -qq
	as_root apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# apt-get source needs a deb-src entry, which most machines lack. Rather
# than add one to /etc/apt, it reads a private one with a private state
# (lists and cache under $work): the system's sources are untouched.
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mkdir -p "$work/apt/parts" "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
: >"$work/apt/empty.list"
cat >"$work/apt/parts/debian-src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_private=(-o Dir::Etc::SourceList="$work/apt/empty.list" -o Dir::Etc::SourceParts="$work/apt/parts"
	-o Dir::State::Lists="$work/apt/lists" -o Dir::Cache="$work/apt/cache" -o APT::Sandbox::User=root)
log "fetching Debian's libgit2 source package"
apt-get -qq "${apt_private[@]}" update >/dev/null 2>&1 || { log "apt-get update of the private deb-src state failed"; exit 1; }
(cd "$work" && apt-get -qq "${apt_private[@]}" source --download-only libgit2 >/dev/null 2>&1) || {
	log "apt-get source libgit2 failed"; exit 1
}
dsc=$(ls "$work"/libgit2_1.5.*.dsc 2>/dev/null | head -n 1)
[ -n "$dsc" ] || { log "Debian's source package is not libgit2 1.5: $(ls "$work")"; exit 1; }
log "building $(basename "$dsc" .dsc) for $arch into $prefix (once: later builds reuse it)"
# apt-get source checked the files against the signed Release file; the
# .dsc's own signature needs the uploader's key, which is not installed.
dpkg-source --no-check -x "$dsc" "$work/src" >/dev/null

cross=()
if [ "$deb_arch" != "$native" ]; then
	mkdir -p "$work/debs" "$work/sysroot" "$prefix/lib" "$prefix/include"
	(cd "$work/debs" && apt-get download "libhttp-parser-dev:$deb_arch" "libhttp-parser2.9:$deb_arch" >/dev/null)
	for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$work/sysroot"; done
	cp "$work/sysroot/usr/lib/$triplet/libhttp_parser.a" "$prefix/lib/"
	cp "$work/sysroot/usr/include/http_parser.h" "$prefix/include/"
	cross=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="${triplet%%-*}"
		-DCMAKE_C_COMPILER="$triplet-gcc" -DCMAKE_FIND_ROOT_PATH="/usr/$triplet;$prefix"
		-DHTTP_PARSER_INCLUDE_DIR="$prefix/include" -DHTTP_PARSER_LIBRARY="$prefix/lib/libhttp_parser.a"
		-DPKG_CONFIG_EXECUTABLE=/usr/bin/pkg-config)
	export PKG_CONFIG_LIBDIR="/usr/lib/$triplet/pkgconfig:/usr/share/pkgconfig"
fi
cmake -S "$work/src" -B "$work/build" "${cross[@]}" \
	-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
	-DCMAKE_C_FLAGS="-fPIC -O2" -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTS=OFF -DBUILD_CLI=OFF \
	-DBUILD_EXAMPLES=OFF -DUSE_HTTPS=OFF -DUSE_SSH=OFF -DUSE_GSSAPI=OFF -DUSE_NTLMCLIENT=OFF \
	-DUSE_HTTP_PARSER=system -DREGEX_BACKEND=pcre2 -DUSE_BUNDLED_ZLIB=OFF -DUSE_THREADS=ON \
	>"$work/cmake.log" 2>&1 || { tail -n 30 "$work/cmake.log" >&2; exit 1; }
# cmake's own progress ("[ 45%] Building C object …") every few seconds,
# so a minutes-long compile is never silent.
cmake --build "$work/build" -j "$(nproc)" >"$work/build.log" 2>&1 &
build=$!
last=""
while kill -0 "$build" 2>/dev/null; do
	sleep 3
	# Before cmake prints its first percentage grep finds nothing; under
	# pipefail that must not end the script.
	pct=$(grep -o '^\[ *[0-9]*%\]' "$work/build.log" | tail -n 1 | tr -dc '0-9' || true)
	if [ -n "$pct" ] && [ "$pct" != "$last" ]; then log "compiling: $pct%"; last=$pct; fi
done
wait "$build" || { tail -n 30 "$work/build.log" >&2; exit 1; }
cmake --install "$work/build" >/dev/null
touch "$stamp"
log "done: $prefix/lib/libgit2.a"
