#!/usr/bin/env bash
# The gloss demo: a real repository, gloss set up in it, commits made
# through the real hooks, and what gloss knows read back through the CLI
# and through MCP (the official TypeScript SDK client). Run by `make demo`,
# which builds bin/git-gloss and puts it on PATH first.
#
# Each capability adds its part as scripts/demo.d/NN-name.sh; they run in
# order, in the demo repository, with the helpers below.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# Everything the demo makes lives under one folder: the repository, its
# bare remote, a teammate's clone and the scripted agent. A go.mod there
# keeps the demo's Go files out of gloss's own `go test ./...`.
base=${GLOSS_DEMO_DIR:-$root/demo-repo}
demo="$base/work"
remote="$base/remote.git"
teammate="$base/teammate"
# A server an earlier demo left running here (95-serve.sh) stops first.
if [ -f "$base/serve.pid" ]; then
	kill "$(cat "$base/serve.pid")" 2>/dev/null || true
fi
rm -rf "$base"
mkdir -p "$base"
printf 'module demo\n\ngo 1.25\n' >"$base/go.mod"

# step prints a heading; run prints a command, then runs it; mcp calls
# tools through the TypeScript SDK client: mcp TOOL JSON [TOOL JSON ...].
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '\033[2m$ %s\033[0m\n' "$*"; "$@"; }
mcp() { run node "$root/tests/mcp-client/call.mjs" "$PWD" "$@"; }

export GIT_AUTHOR_NAME="Demo Dev" GIT_AUTHOR_EMAIL="dev@demo.invalid"
export GIT_COMMITTER_NAME="Demo Dev" GIT_COMMITTER_EMAIL="dev@demo.invalid"

for part in "$root"/scripts/demo.d/*.sh; do
	cd "$demo" 2>/dev/null || cd "$root"
	# shellcheck source=/dev/null
	source "$part"
done

step "Done"
echo "The demo repository is $demo; try: cd $demo && git gloss --help"
if [ -n "${serve_url:-}" ]; then
	echo "git gloss serve is running in the background (stop it with: kill $(cat "$base/serve.pid")). Open:"
	echo "$serve_url"
fi
