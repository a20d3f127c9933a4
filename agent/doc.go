// Package agent is gloss's side of the coding agents' own hook systems
// (Claude Code, Gemini CLI, Codex, Cursor): what `git gloss agent hook
// --agent NAME EVENT` does with the JSON an agent sends on each event.
//
//   - Delivery: at session start a short brief of what gloss holds here;
//     before an edit the constraints, risks, rejected alternatives and
//     dependencies recorded for the regions being edited (the pipeline of
//     `git gloss read`) and the specs that govern the file; on a prompt the
//     notebook notes that match it. Each part has a token budget ([agent]
//     in .gloss/config.toml) and each item reaches a session once.
//   - Capture: after an edit, which lines the agent wrote (ranges and a
//     content hash per line), with session, agent, model and tool, in a
//     per-worktree store under the git dir (see Edit); on a prompt, its
//     redacted summary for the session. The post-commit hook turns them
//     into annotation records and a session record on its own notes ref.
//
// Everything an agent sends is untrusted data: paths go through safepath,
// prompts are redacted before anything is stored, and nothing here ever
// blocks, slows or fails the agent — the front door answers within a time
// budget and otherwise says nothing.
package agent
