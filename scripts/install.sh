#!/usr/bin/env bash
# Installs git-gloss and its man page where git finds them.
#
#   scripts/install.sh [--prefix DIR] [ARCHIVE.tar.gz]
#
# With an archive (from `make dist`, or the newest one in dist/ for this
# machine), its SHA-256 is checked against the SHA256SUMS file beside it
# and its self-contained binary is installed. Without one, gloss is built
# from source (`make build`, which installs the build dependencies).
#
# PREFIX defaults to /usr/local for root and ~/.local otherwise; the binary
# goes to PREFIX/bin/git-gloss (git runs it as `git gloss`) and the man page
# to PREFIX/share/man/man1/git-gloss.1 (git shows it for `git gloss --help`).
set -euo pipefail

prefix=""
archive=""
while [ $# -gt 0 ]; do
	case "$1" in
		--prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
		--prefix=*) prefix=${1#--prefix=}; shift ;;
		-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		-*) echo "install.sh: unknown option $1" >&2; exit 2 ;;
		*) archive=$1; shift ;;
	esac
done
if [ -z "$prefix" ]; then
	if [ "$(id -u)" -eq 0 ]; then prefix=/usr/local; else prefix=$HOME/.local; fi
fi
say() { printf 'install: %s\n' "$*"; }
here=$(cd "$(dirname "$0")/.." && pwd)

case "$(uname -m)" in
	x86_64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) arch=$(uname -m) ;;
esac
if [ -z "$archive" ] && [ -d "$here/dist" ]; then
	archive=$(ls -t "$here"/dist/git-gloss_*_linux_"$arch".tar.gz 2>/dev/null | head -n 1 || true)
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
if [ -n "$archive" ]; then
	[ -f "$archive" ] || { echo "install.sh: no such archive: $archive" >&2; exit 1; }
	sums="$(dirname "$archive")/SHA256SUMS"
	[ -f "$sums" ] || { echo "install.sh: no SHA256SUMS beside $archive; refusing an unchecked binary" >&2; exit 1; }
	name=$(basename "$archive")
	want=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1 }' "$sums")
	[ -n "$want" ] || { echo "install.sh: $name is not listed in $sums" >&2; exit 1; }
	got=$(sha256sum "$archive" | awk '{ print $1 }')
	[ "$want" = "$got" ] || { echo "install.sh: checksum mismatch for $name (want $want, got $got)" >&2; exit 1; }
	say "checksum of $name verified"
	tar -xzf "$archive" -C "$stage"
	dir=$(find "$stage" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	cp "$dir/git-gloss" "$stage/git-gloss.bin"
	cp "$dir/git-gloss.1" "$stage/git-gloss.1"
else
	say "no archive for linux/$arch; building from source"
	make -C "$here" build >&2
	cp "$here/bin/git-gloss" "$stage/git-gloss.bin"
	"$stage/git-gloss.bin" man >"$stage/git-gloss.1"
fi

install -d "$prefix/bin" "$prefix/share/man/man1"
install -m 0755 "$stage/git-gloss.bin" "$prefix/bin/git-gloss"
install -m 0644 "$stage/git-gloss.1" "$prefix/share/man/man1/git-gloss.1"
say "installed $prefix/bin/git-gloss ($("$prefix/bin/git-gloss" --version))"
say "installed $prefix/share/man/man1/git-gloss.1"

case ":$PATH:" in
	*":$prefix/bin:"*) ;;
	*) say "add $prefix/bin to PATH so git finds 'git gloss':  export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
if ! MANPATH=${MANPATH:-} manpath 2>/dev/null | tr ':' '\n' | grep -qx "$prefix/share/man"; then
	say "for 'git gloss --help', let man find the page:  export MANPATH=\"$prefix/share/man:\$MANPATH\""
fi
say "next: cd your-repo && git gloss init"
