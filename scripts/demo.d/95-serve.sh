# The web view: git gloss serve on the demo repository, left running in
# the background so the demo ends without blocking. A server an earlier
# demo started is stopped first (its pid is kept in bin/).
step "See it: git gloss serve (a local, read-only web view)"
pidfile="$root/bin/demo-serve.pid"
if [ -f "$pidfile" ]; then
	old=$(cat "$pidfile")
	if [ -n "$old" ] && ps -p "$old" -o args= 2>/dev/null | grep -q 'serve'; then
		kill "$old" 2>/dev/null || true
	fi
	rm -f "$pidfile"
fi
serve_log="$base/serve.log"
nohup git gloss serve --port "${GLOSS_DEMO_PORT:-0}" >"$serve_log" 2>&1 </dev/null &
echo $! >"$pidfile"
serve_url=""
for _ in $(seq 50); do
	serve_url=$(grep -m1 '^http://' "$serve_log" 2>/dev/null || true)
	[ -n "$serve_url" ] && break
	sleep 0.1
done
