# The agent loop: a scripted Claude Code session through the agent's own
# hook system (`git gloss agent hook`, what `git gloss agent install`
# wires up), with the payloads Claude Code documents. gloss tells the
# agent what it needs before it edits, and records what it did.
transcript="$base/claude-transcript.jsonl"
printf '%s\n' '{"type":"assistant","message":{"role":"assistant","model":"claude-sonnet-4-5","content":[]}}' >"$transcript"
# hook EVENT JSON: run one event as Claude Code would, and show what the
# agent is told (the additionalContext of the answer).
hook() {
	printf '\033[2m$ git gloss agent hook --agent claude %s  <<< %s\033[0m\n' "$1" "$(printf '%s' "$2" | cut -c1-110)…"
	printf '%s' "$2" | git gloss agent hook --agent claude "$1" |
		node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{if(!s.trim()){console.log("(nothing to say)");return}console.log(JSON.parse(s).hookSpecificOutput.additionalContext)})'
}
payload() { # payload EVENT [extra JSON fields]
	printf '{"session_id":"demo-session","transcript_path":"%s","cwd":"%s","hook_event_name":"%s"%s}' "$transcript" "$PWD" "$1" "${2:+,$2}"
}
edit_input='"tool_name":"Edit","tool_input":{"file_path":"'"$PWD"'/server/server.go","old_string":"\tw.WriteHeader(http.StatusNoContent)\n","new_string":"\tw.Header().Set(\"Cache-Control\", \"no-store\")\n\tw.Header().Set(\"X-Health\", \"ok\")\n\tw.WriteHeader(http.StatusNoContent)\n"}'

step "Session start: the agent gets a short brief"
hook SessionStart "$(payload SessionStart '"source":"startup"')"

step "A prompt (with a pasted secret): matching notebook notes come back; gloss keeps only a redacted summary"
hook UserPromptSubmit "$(payload UserPromptSubmit '"prompt":"Add cache headers to the health endpoint; the deploy token is ghp_R8xk2PqLm9ZtW4vYc7NbH3sJd6FgA1eUo5Ti"')"

step "Before the agent edits Server.Health: what the team recorded for those lines"
hook PreToolUse "$(payload PreToolUse "$edit_input")"

step "The agent edits; its hook records which lines it wrote"
perl -0pi -e 's/\tw\.WriteHeader\(http\.StatusNoContent\)\n/\tw.Header().Set("Cache-Control", "no-store")\n\tw.Header().Set("X-Health", "ok")\n\tw.WriteHeader(http.StatusNoContent)\n/' server/server.go
hook PostToolUse "$(payload PostToolUse "$edit_input")"

step "A person changes one of the agent's lines, then commits (no Intent: trailer)"
sed -i 's/"X-Health", "ok"/"X-Health", "pass"/' server/server.go
run git commit -q -am "server: cache headers on health"

step "What was captured: the agent's line by claude + model, the person's line not"
run git gloss read server/server.go --lines "$(grep -n 'Cache-Control' server/server.go | cut -d: -f1):$(grep -n 'X-Health' server/server.go | cut -d: -f1)"
step "The session record (its own notes ref, private unless [sync] sessions = true)"
run git notes --ref gloss/sessions show HEAD
if git log --all -p | grep -q ghp_R8xk2P || git notes --ref gloss/sessions show HEAD | grep -q ghp_R8xk2P; then
	echo "the pasted secret reached git" >&2
	exit 1
fi
echo "The pasted token is nowhere in git: redacted by gitleaks' rules before anything was stored."
