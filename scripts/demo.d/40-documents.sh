# Structured documents: a .noma decision record, read, checked, patched
# through the CLI and through MCP, with the transcript replayed from git.
step "Structured documents: a .noma document, patched by block id"
mkdir -p docs
cat > docs/pricing.noma <<'NOMA'
---
title: Pricing decision
---

# Pricing

::claim{id="market-size" confidence=0.5}
The addressable market is worth ten billion.
::

::evidence{for="market-size"}
A survey of 40 firms (2026).
::

::table{id="tiers" header}
Tier | Price
Free | 0
Team | 12
::

See [[market-size]] before changing [[tiers]].
NOMA
git add docs && git commit -q -m "docs: pricing decision"
run git gloss doc read docs/pricing.noma
run git gloss doc check docs/pricing.noma
run git gloss doc patch docs/pricing.noma --reason "new survey" \
	--op '{"op":"update_attribute","id":"market-size","key":"confidence","value":0.8}'
run git gloss doc patch docs/pricing.noma \
	--op '{"op":"rename_id","from":"market-size","to":"tam"}'
run git gloss doc patch docs/pricing.noma \
	--op '{"op":"delete_block","id":"market-size"}' || true

step "The same document through MCP (TypeScript SDK client)"
mcp list_ids '{"file":"docs/pricing.noma"}' \
	patch_block '{"file":"docs/pricing.noma","op":{"op":"update_table_cell","id":"tiers","row":1,"column":"Price","value":"15"},"actor":{"kind":"agent","name":"demo-agent"},"reason":"price rise"}' \
	patch_block '{"file":"docs/pricing.noma","op":{"op":"rename_id","from":"tam","to":"tiers"}}' \
	validate_doc '{"file":"docs/pricing.noma"}'

step "The transcript: every attempted patch, replayable from git history"
git add docs && git commit -q -m "docs: pricing patched"
run git gloss doc log docs/pricing.noma
run git gloss doc replay docs/pricing.noma
run git diff HEAD~1 --stat
