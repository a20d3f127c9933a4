#!/usr/bin/env bash
# The gloss demo: a real repository, gloss set up in it, commits made
# through the real hooks, and what gloss knows read back through the CLI
# and through MCP (the official TypeScript SDK client). Run by `make demo`,
# which builds bin/git-gloss and puts it on PATH first.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
demo=${GLOSS_DEMO_DIR:-$root/demo-repo}
rm -rf "$demo" "$demo.remote.git" "$demo-teammate"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '\033[2m$ %s\033[0m\n' "$*"; "$@"; }

export GIT_AUTHOR_NAME="Demo Dev" GIT_AUTHOR_EMAIL="dev@demo.invalid"
export GIT_COMMITTER_NAME="Demo Dev" GIT_COMMITTER_EMAIL="dev@demo.invalid"

step "A small service in a fresh repository"
git init -q -b main "$demo"
cd "$demo"
git config user.name "Demo Dev"
git config user.email dev@demo.invalid
mkdir -p server
cat > server/server.go <<'GO'
package server

import "net/http"

// Server answers the todo API.
type Server struct{ mux *http.ServeMux }

// Handle registers the routes.
func (s *Server) Handle() {
	s.mux.HandleFunc("/todos", s.list)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	w.Write([]byte("[]"))
}
GO
git add -A
git commit -q -m "server: initial todo API"
git init -q --bare -b main "$demo.remote.git"
git remote add origin "$demo.remote.git"
git push -q origin main

step "git gloss init: hooks, git config, MCP entry"
run git gloss init

step "Commits through the real hooks"
cat >> server/server.go <<'GO'

// Health reports liveness for the load balancer.
func (s *Server) Health(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}
GO
git add -A
run git commit -q -m "server: add health endpoint" -m "Constraint: must answer in under 10 ms; the load balancer times out at 50 ms"
tail -n 2 .git/gloss/hooks.log

step "What gloss knows (CLI)"
run git gloss status

step "The same through MCP (TypeScript SDK client)"
run node "$root/tests/mcp-client/call.mjs" "$demo" gloss_status '{}'

step "Sync notes with a teammate's clone through the shared remote"
git clone -q "$demo.remote.git" "$demo-teammate"
(cd "$demo-teammate" && git config user.name "Teammate" && git config user.email mate@demo.invalid && git gloss init --no-mcp >/dev/null)
run git gloss sync origin
(cd "$demo-teammate" && run git gloss sync origin)

step "Done"
echo "The demo repository is $demo; try: cd $demo && git gloss --help"
