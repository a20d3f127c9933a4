#!/usr/bin/env bash
# Installs git-gloss and its man page where git finds them.
#
#   install.sh --version v1.2.3 [--prefix DIR]   a published release
#   install.sh [--prefix DIR] [ARCHIVE.tar.gz]    an archive from make dist
#
# --version downloads the release's archive for this machine and its
# SHA256SUMS (from GLOSS_RELEASE_URL/<version>/, default gloss's GitHub
# releases; --from URL sets that base), refuses an archive whose SHA-256
# differs, and checks its build provenance (the release's signed
# attestation) with gh or cosign when one is installed: saying which, or
# that neither is there and only the checksum was checked
# (--require-provenance refuses then). With an archive file, its SHA-256
# is checked against the SHA256SUMS beside it. With neither, the newest
# archive in dist/ is used, or gloss is built from source (make build).
#
# PREFIX defaults to /usr/local for root and ~/.local otherwise; the binary
# goes to PREFIX/bin/git-gloss (git runs it as `git gloss`) and the man page
# to PREFIX/share/man/man1/git-gloss.1 (git shows it for `git gloss --help`).
set -euo pipefail

repo_slug=gloss-dev/gloss
prefix=""
archive=""
version=""
from=${GLOSS_RELEASE_URL:-https://github.com/$repo_slug/releases/download}
require_provenance=""
while [ $# -gt 0 ]; do
	case "$1" in
		--prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
		--prefix=*) prefix=${1#--prefix=}; shift ;;
		--version) version=${2:?--version needs a release, e.g. v1.2.3}; shift 2 ;;
		--version=*) version=${1#--version=}; shift ;;
		--from) from=${2:?--from needs a URL}; shift 2 ;;
		--from=*) from=${1#--from=}; shift ;;
		--require-provenance) require_provenance=1; shift ;;
		-h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		-*) echo "install.sh: unknown option $1" >&2; exit 2 ;;
		*) archive=$1; shift ;;
	esac
done
if [ -n "$version" ] && [ -n "$archive" ]; then
	echo "install.sh: give --version or an archive, not both" >&2; exit 2
fi
case "$version" in
	*[!A-Za-z0-9._+-]* | .*) echo "install.sh: --version takes a release tag such as v1.2.3, not $version" >&2; exit 2 ;;
esac
if [ -z "$prefix" ]; then
	if [ "$(id -u)" -eq 0 ]; then prefix=/usr/local; else prefix=$HOME/.local; fi
fi
say() { printf 'install: %s\n' "$*"; }
here=$(cd "$(dirname "$0")/.." && pwd)

case "$(uname -s)" in
	Linux) ;;
	*) echo "install.sh: gloss releases are built for Linux only ($(uname -s) here): build from source, see docs/install.md" >&2; exit 1 ;;
esac
case "$(uname -m)" in
	x86_64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) arch=$(uname -m) ;;
esac
if [ -z "$archive" ] && [ -z "$version" ] && [ -d "$here/dist" ]; then
	archive=$(ls -t "$here"/dist/git-gloss_*_linux_"$arch".tar.gz 2>/dev/null | head -n 1 || true)
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# fetch URL FILE: curl, else wget; a missing file is an error that names it.
fetch() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --proto '=https,http' -o "$2" "$1" || { echo "install.sh: could not download $1" >&2; return 1; }
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1" || { echo "install.sh: could not download $1" >&2; return 1; }
	else
		echo "install.sh: neither curl nor wget is installed" >&2; return 1
	fi
}

# provenance ARCHIVE [BUNDLE]: checks the archive's signed build provenance
# with the tools there are, and says what was checked.
provenance() {
	local what="checked: its SHA-256 against the release's SHA256SUMS"
	if command -v gh >/dev/null 2>&1; then
		local args=(attestation verify "$1" --repo "$repo_slug")
		[ -z "${2:-}" ] || args+=(--bundle "$2")
		gh "${args[@]}" >/dev/null 2>&1 || { echo "install.sh: the build provenance of $(basename "$1") does not verify (gh ${args[*]}); refusing it" >&2; exit 1; }
		say "build provenance of $(basename "$1") verified with gh (built by $repo_slug's release workflow)"
	elif command -v cosign >/dev/null 2>&1 && [ -n "${2:-}" ]; then
		cosign verify-blob-attestation --bundle "$2" --type slsaprovenance1 \
			--certificate-oidc-issuer https://token.actions.githubusercontent.com \
			--certificate-identity-regexp "^https://github.com/$repo_slug/" "$1" >/dev/null 2>&1 ||
			{ echo "install.sh: the build provenance of $(basename "$1") does not verify (cosign); refusing it" >&2; exit 1; }
		say "build provenance of $(basename "$1") verified with cosign (built by $repo_slug's release workflow)"
	else
		if [ -n "$require_provenance" ]; then
			echo "install.sh: --require-provenance: neither gh nor cosign is installed to check the build provenance" >&2; exit 1
		fi
		say "build provenance not checked: neither gh nor cosign is installed; $what (which guards the download, not the build)"
		say "to check it: gh attestation verify $(basename "$1") --repo $repo_slug"
	fi
}

if [ -n "$version" ]; then
	name="git-gloss_${version}_linux_${arch}.tar.gz"
	base="${from%/}/$version"
	say "downloading $name from $base"
	mkdir -p "$stage/release"
	fetch "$base/$name" "$stage/release/$name" || { echo "install.sh: no $name in release $version (is $version a release, built for linux/$arch?)" >&2; exit 1; }
	fetch "$base/SHA256SUMS" "$stage/release/SHA256SUMS" || exit 1
	bundle=""
	if fetch "$base/provenance.sigstore.json" "$stage/release/provenance.sigstore.json" 2>/dev/null; then
		bundle="$stage/release/provenance.sigstore.json"
	fi
	archive="$stage/release/$name"
fi

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
	[ -z "$version" ] || provenance "$archive" "$bundle"
	mkdir -p "$stage/x"
	tar -xzf "$archive" -C "$stage/x"
	dir=$(find "$stage/x" -mindepth 1 -maxdepth 1 -type d | head -n 1)
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
