# Tasks: one added, found ready, worked by an agent in its own worktree,
# and done. The agent here is a script (set through personal git config,
# as a real one would be: `git config gloss.agent "claude -p"`).
step "Tasks: add one, see it ready, let an agent do it"
agent="$base/agent.sh"
cat > "$agent" <<'AGENT'
#!/bin/sh
# A scripted agent: it reads its task, does the work, ticks the criteria.
echo "reading $GLOSS_TASK_FILE"
mkdir -p server
cat > server/health.go <<'GO'
package server

import "net/http"

// Health answers the load balancer's probe.
func Health(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }
GO
git add server/health.go
git commit -q -m "task($GLOSS_TASK_ID): add the health endpoint" -m "Constraint: answer without touching the database"
sed -i 's/- \[ \]/- [x]/' "$GLOSS_TASK_FILE"
git commit -q -am "task($GLOSS_TASK_ID): criteria met"
echo "done"
AGENT
chmod +x "$agent"
git config gloss.agent "$agent"
# The team's check: a run lands on the branch only when it passes. It is a
# command from a committed file, so it runs only once this clone approved
# its exact text.
mkdir -p .gloss
printf '[tasks.checks]\nbuild = "test -f server/health.go"\n' >> .gloss/config.toml
git add .gloss/config.toml && git commit -q -m "tasks: the check a run must pass"
run git gloss task checks
run git gloss task checks --approve

run git gloss task add "Add a health endpoint for the load balancer" \
	-c "GET /health answers 204" -c "the handler never touches the database"
id=$(git gloss task list --json | sed -n 's/.*"id":"\([^"]*\)".*/\1/p' | tail -n 1)
run git gloss task ready
run git gloss task work "$id"
# The agent runs under a supervisor; wait for it to settle the run.
for _ in $(seq 100); do
	st=$(git gloss task show "$id" --json | sed -n 's/.*"status":"\([a-z_]*\)".*/\1/p' | head -n 1)
	[ "$st" = completed ] && ! git gloss task runs --json | grep -q '"status":"running"' && break
	sleep 0.2
done
run git gloss task show "$id"
run git gloss task log "$id" --lines 4
run git gloss task status
run git log --oneline -6

step "The same tasks through MCP (TypeScript SDK client)"
mcp task_status '{"brief":true}' task_get "{\"id\":\"${id: -7}\"}"
git config --unset gloss.agent
