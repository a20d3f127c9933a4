# The web view: git gloss serve on the demo repository, left running in
# the background so the demo ends without blocking. Its pid is kept in the
# demo folder; the next demo stops it before it starts over.
step "See it: git gloss serve (a local, read-only web view)"
serve_log="$base/serve.log"
# git-gloss itself, not "git gloss": git would stay as its parent, and
# the pid kept must be the server's.
nohup git-gloss serve --port "${GLOSS_DEMO_PORT:-0}" >"$serve_log" 2>&1 </dev/null &
echo $! >"$base/serve.pid"
serve_url=""
for _ in $(seq 50); do
	serve_url=$(grep -m1 '^http://' "$serve_log" 2>/dev/null || true)
	[ -n "$serve_url" ] && break
	sleep 0.1
done
