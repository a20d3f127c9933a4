# A small service in a fresh repository, gloss set up in it.
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
git init -q --bare -b main "$remote"
git remote add origin "$remote"
git push -q origin main

step "git gloss init: hooks, git config, MCP entry, an empty notebook"
run git gloss init --notebook
