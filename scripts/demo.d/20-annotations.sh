# Reading annotations back: CLI, git log, MCP; and they survive a rebase.
step "Why is Server.Health the way it is? (CLI)"
run git gloss read server/server.go --anchor Server.Health

step "git gloss log: git log with one readable line per gloss record"
run git gloss log --oneline -3

step "Rewrite history: the annotations follow an interactive rebase"
cat >> server/server.go <<'GO'

// Ready reports readiness.
func (s *Server) Ready(w http.ResponseWriter, r *http.Request) {}
GO
git commit -q -am "server: add ready"
GIT_SEQUENCE_EDITOR="sed -i '1s/^pick/reword/'" GIT_EDITOR="sed -i '1s/.*/server: health endpoint for the load balancer/'" \
	git rebase -q -i HEAD~2 >/dev/null
run git log --oneline -3
run git gloss read server/server.go --anchor Server.Health --json --max-tokens 200

step "The same question through MCP (TypeScript SDK client)"
mcp gloss_read '{"path":"server/server.go","anchor":"Server.Health"}' gloss_summary '{"path":"server"}'
