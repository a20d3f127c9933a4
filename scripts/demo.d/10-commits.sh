# Commits made through the real hooks.
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
