package mcp

import (
	"context"
	"fmt"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/schemas"
	"github.com/gloss-dev/gloss/setup"
	"github.com/gloss-dev/gloss/spec"
)

// registerCore adds the tools about gloss itself.
func registerCore(r *registry) {
	addTool(r, toolDef{
		Name: "gloss_status",
		Description: "Reports gloss's setup in this repository: the notes refs with their record counts, " +
			"installed hooks, the git config gloss relies on, team and personal configuration, MCP registrations, " +
			"and hints for anything missing.",
		Output: "status",
	}, func(ctx context.Context, c *call, _ struct{}) (any, error) {
		repo, err := c.Repo()
		if err != nil {
			return nil, err
		}
		return setup.CollectStatus(ctx, repo)
	})
	registerSchema(r)
}

type schemaInput struct {
	Name string `json:"name,omitempty" jsonschema:"a shape's name, or the $schema tag of a result; omit to list them all"`
}

// registerSchema adds gloss_schema: the output schemas that tools/list
// leaves out by default, on demand.
func registerSchema(r *registry) {
	addTool(r, toolDef{
		Name:        "gloss_schema",
		Description: "The JSON Schema of a gloss result, by the $schema tag it carries (or a name); without one, the list of shapes.",
	}, func(_ context.Context, _ *call, in schemaInput) (any, error) {
		if in.Name == "" {
			return schemas.List(), nil
		}
		e, ok := schemas.Find(in.Name)
		if !ok {
			return nil, fault.NotFoundf("no schema named %q; call gloss_schema without a name for the list", in.Name)
		}
		doc, err := schemas.Document(e.Name)
		return preformatted(doc), err
	})
}

// initializeNotes computes the hints spliced into the initialize result.
// They appear only in repositories where gloss is set up: projectNote when
// that setup is older than this binary, schemaNote when the repository's
// specs use an older spec schema than this binary's.
func initializeNotes(handles *handlePool) map[string]string {
	h, err := handles.get()
	if err != nil {
		return nil
	}
	defer handles.put(h)
	repo := h.repo
	st, err := setup.CollectStatus(context.Background(), repo)
	if err != nil || !st.Initialized {
		return nil
	}
	notes := map[string]string{}
	if st.Setup.Outdated {
		notes["projectNote"] = fmt.Sprintf("gloss in this repository was set up by an older version (setup v%d; this server is v%d). Ask the user to run `git gloss init` to update hooks and configuration.", st.Setup.Recorded, st.Setup.Current)
	}
	if !repo.IsBare() {
		// Advice stays within what the team's NotarAI accepts.
		if a := spec.AdviseSchema(repo.Root()); a != nil {
			notes["schemaNote"] = a.Note()
		}
	}
	return notes
}
