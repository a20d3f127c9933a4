// gloss's OpenCode plugin (https://opencode.ai/docs/plugins): written by
// `git gloss agent install --agent opencode`, removed by `git gloss agent
// uninstall`; edit it and gloss leaves it alone. gloss-owned-file: opencode
//
// OpenCode has no hook configuration, only plugins, so this file hands the
// plugin events gloss needs to `git gloss agent hook --agent opencode
// <event>`, one JSON payload on stdin and {"context": "..."} or nothing on
// stdout, as the other agents' hooks do. It never blocks the agent: a hook
// that fails, times out or is missing answers nothing.
//
//   chat.message          the prompt (kept redacted for the session) and the
//                         model; the notes that match it are added to the
//                         system prompt of the turn
//   system prompt         the session brief, once, for the session's model
//   tool.execute.after    after read: the records and specs of the lines
//                         read, appended to what the model sees; after
//                         edit, write, apply_patch: which lines were written
import { spawnSync } from "node:child_process";

export const GlossPlugin = async ({ directory }) => {
  const models = new Map(); // session -> "provider/model" of its chat
  const briefed = new Set();
  const pending = new Map(); // session -> notes for the next system prompt
  const hook = (event, payload) => {
    try {
      const r = spawnSync("git", ["gloss", "agent", "hook", "--agent", "opencode", event], {
        cwd: directory,
        input: JSON.stringify({ hook_event_name: event, cwd: directory, ...payload }),
        encoding: "utf8",
        timeout: 10000,
      });
      return r.status === 0 && r.stdout ? JSON.parse(r.stdout).context || "" : "";
    } catch {
      return "";
    }
  };
  return {
    "chat.message": async (input, output) => {
      const m = output?.message?.model;
      if (m) models.set(input.sessionID, `${m.providerID}/${m.modelID}`);
      const prompt = (output?.parts || []).filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n");
      const context = hook("chat.message", { session_id: input.sessionID, model: models.get(input.sessionID), prompt });
      if (context) pending.set(input.sessionID, context);
    },
    "experimental.chat.system.transform": async (input, output) => {
      const id = input?.sessionID;
      const m = input?.model;
      // Only the session's own model: OpenCode also asks a small model for
      // the session's title, and what that call is told is lost.
      if (!id || !m || `${m.providerID}/${m.id}` !== models.get(id)) return;
      if (!briefed.has(id)) {
        briefed.add(id);
        const context = hook("session.created", { session_id: id, model: models.get(id) });
        if (context) output.system.push(context);
      }
      if (pending.has(id)) {
        output.system.push(pending.get(id));
        pending.delete(id);
      }
    },
    "tool.execute.after": async (input, output) => {
      // The tools gloss reads (payload_opencode.go); the others cost nothing.
      if (!["read", "edit", "write", "apply_patch"].includes(input?.tool)) return;
      const context = hook("tool.execute.after", {
        session_id: input.sessionID,
        model: models.get(input.sessionID),
        tool: input.tool,
        args: input.args,
        diff: output?.metadata?.diff,
      });
      if (context && typeof output?.output === "string") output.output += "\n\n" + context;
    },
  };
};
