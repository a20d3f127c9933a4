package setup

import (
	"context"

	"github.com/gloss-dev/gloss/gitops"
)

// AgentState is one agent's hooks file and the gloss events in it.
type AgentState struct {
	Agent   string   `json:"agent"`
	Name    string   `json:"name"`
	Path    string   `json:"path"`
	Global  bool     `json:"global"`
	Exists  bool     `json:"exists"`
	Events  []string `json:"events"`  // the events gloss's entries listen to
	Current bool     `json:"current"` // exactly the entries this version writes
	Error   string   `json:"error,omitempty"`
	Note    string   `json:"note,omitempty"`
}

// AgentStatusResult is `git gloss agent status`.
type AgentStatusResult struct {
	Schema       string              `json:"$schema"`
	Agents       []AgentState        `json:"agents"`
	Instructions []InstructionsState `json:"instructions"`
}

// AgentStatus reports, for every agent, the repository's and the user's
// hooks files and whether gloss's entries are in them.
func AgentStatus(ctx context.Context, repo *gitops.Repo) (*AgentStatusResult, error) {
	res := &AgentStatusResult{Schema: "gloss-agent-status/v1", Agents: []AgentState{}, Instructions: []InstructionsState{}}
	for _, a := range Agents() {
		spec := agentSpecs()[a]
		for _, global := range []bool{false, true} {
			t, err := agentTarget(spec, repo.Root(), global)
			if err != nil {
				continue
			}
			st := AgentState{Agent: a, Name: spec.display, Path: t.Path, Global: global, Events: []string{}, Note: spec.note}
			data, err := readTarget(t)
			if err == nil {
				st.Exists = true
				if spec.file != nil {
					ownedFileState(spec, &st, data)
				} else if _, perr := parseObject(data); perr != nil {
					st.Error = "not valid JSON: " + perr.Error()
				} else if present, gerr := glossEntries(data, spec.cursor); gerr != nil {
					st.Error = gerr.Error()
				} else {
					st.Events = presentEvents(spec, present)
					st.Current = sameEntries(present, spec)
				}
			}
			res.Agents = append(res.Agents, st)
		}
	}
	if root := repo.Root(); root != "" {
		for _, f := range []string{"AGENTS.md", "CLAUDE.md"} {
			res.Instructions = append(res.Instructions, instructionsState(root, f))
		}
	}
	return res, nil
}
