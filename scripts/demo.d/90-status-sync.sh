# What gloss knows, through the CLI and through MCP, then sharing it.
step "What gloss knows (CLI)"
run git gloss status

step "The same through MCP (TypeScript SDK client)"
mcp gloss_status '{}'

step "Sync notes with a teammate's clone through the shared remote"
git clone -q "$remote" "$teammate"
(cd "$teammate" && git config user.name "Teammate" && git config user.email mate@demo.invalid && git gloss init --no-mcp >/dev/null)
run git gloss sync origin
(cd "$teammate" && run git gloss sync origin)
