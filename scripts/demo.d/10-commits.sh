# Commits made through the real hooks; an agent stages its context first
# (after writing the code: annotate checks that the anchor exists).
step "An agent stages why, then commits through the real hooks"
cat >> server/server.go <<'GO'

// Health reports liveness for the load balancer.
func (s *Server) Health(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}
GO
run git gloss annotate --file server/server.go --anchor Server.Health \
	--intent "answer the load balancer without touching the database" \
	--constraint "must answer in under 10 ms" \
	--rejected "reuse /status | it queries the database" \
	--author-name claude --model opus
git add -A
run git commit -q -m "server: add health endpoint" \
	-m "Risk: a slow health check takes the instance out of rotation
Depends-On: server/server.go#Server.Handle | routes are registered there"
tail -n 2 .git/gloss/hooks.log
