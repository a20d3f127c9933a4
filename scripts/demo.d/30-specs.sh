# Specs that govern files: a spec drifts from the code, the push says so,
# and an agent reconciles it.
step "A spec governs the server code (NotarAI's spec schema)"
mkdir -p .gloss/specs
cat > .gloss/specs/server.spec.yaml <<'YAML'
schema_version: '0.8'
intent: The todo HTTP server.
behaviors:
  - name: health
    given: the load balancer polls the health endpoint
    then: it answers 204 in under 10 ms without touching the database
constraints:
  - handlers never block on the database for more than a second
coverage:
  policy: warn
artifacts:
  code:
    - path: server/**
YAML
run git gloss spec validate
git add .gloss/specs
git commit -q -m "specs: the server spec"
run git gloss spec mark server/server.go .gloss/specs/server.spec.yaml
run git gloss spec status

step "The code moves on; the spec drifts"
cat >> server/server.go <<'GO'

// Metrics exposes request counters.
func (s *Server) Metrics(w http.ResponseWriter, r *http.Request) {}
GO
git commit -q -am "server: metrics endpoint"
run git gloss spec status
run git gloss spec affected --base HEAD~1
run git gloss spec diff server --base HEAD~1

step "pre-push: strict policy blocks the drifted push and says what to run"
git config gloss.prepush strict
run git push -q origin main || echo "(push refused, exit $?)"

step "An agent reconciles through MCP (TypeScript SDK client), then pushes"
mcp get_spec_diff '{"spec_path":"server","base_branch":"HEAD~1"}' \
	mark_reconciled '{"files":["server/server.go"]}' \
	snapshot_state '{}'
run git gloss spec status
git add .gloss/reconciliation_state.json
git commit -q -m "specs: reconciliation snapshot"
run git push -q origin main
git config --unset gloss.prepush
