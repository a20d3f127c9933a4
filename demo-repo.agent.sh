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
