# The team notebook: a note saved, found again, through the CLI and MCP.
step "The notebook (scaffolded by init): save a kit, find it again"
run git gloss note create deploy --type kit --tag ops --title "Deploy the service" \
	-m "# Deploy the service

1. make release
2. push the tag; CI builds the image and rolls it out.
The health endpoint must answer in under 10 ms or the rollout stops."
run git gloss note search "rollout health"
run git gloss note status

step "The same notebook through MCP (TypeScript SDK client)"
mcp create_note '{"name":"rotate-token","content":"Rotate the release token every month; the vault holds it.","frontmatter":{"type":"kit","tags":["ops","security"]}}' \
	search_notes '{"query":"release token","tags":["ops"]}'
