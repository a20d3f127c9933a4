package agent_test

import (
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

func openRepo(t *testing.T, fx *fixtures.Repo) *gitops.Repo {
	t.Helper()
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	return repo
}

func TestPendingStoreConsumesWhatACommitUsed(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("base", map[string]string{"a.txt": "one\n", "b.txt": "x\n"})
	repo := openRepo(t, fx)

	h := func(s string) string { return agent.HashLine(s) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(agent.AppendEdit(repo,
		agent.Edit{Session: "s1", Agent: "claude", Model: "m", Tool: "Edit", File: "a.txt",
			Lines: []agent.LineRange{{Start: 2, End: 3}}, Hashes: []string{h("two"), h("three")}},
		agent.Edit{Session: "s1", Agent: "claude", Tool: "Write", File: "b.txt",
			Lines: []agent.LineRange{{Start: 1, End: 1}}, Hashes: []string{h("y")}},
	))
	edits, err := agent.PendingEdits(repo)
	must(err)
	if len(edits) != 2 || edits[0].Schema != agent.EditSchema || edits[0].Time == "" {
		t.Fatalf("pending = %+v", edits)
	}
	// The commit takes a.txt with only one of the agent's lines ("three"
	// is in the working tree, not staged): the other line stays pending,
	// b.txt (not committed) stays whole.
	fx.Write("a.txt", "one\ntwo\nthree\n")
	fx.Write("b.txt", "y\n")
	stageBlob(t, fx, "a.txt", "one\ntwo\n")
	fx.Git("commit", "-q", "-m", "a")
	head := fx.Git("rev-parse", "HEAD")
	must(agent.ConsumePending(repo, head))
	edits, err = agent.PendingEdits(repo)
	must(err)
	if len(edits) != 2 || len(edits[0].Hashes) != 1 || edits[0].Hashes[0] != h("three") || edits[1].File != "b.txt" {
		t.Fatalf("after a partial commit: %+v", edits)
	}
	// A person rewrites the agent's "three" and commits everything: the
	// line is gone, so nothing of it waits any more.
	head = fx.Commit("b", map[string]string{"a.txt": "one\ntwo\nTHREE\n"})
	must(agent.ConsumePending(repo, head))
	if edits, _ = agent.PendingEdits(repo); len(edits) != 0 {
		t.Fatalf("everything was committed or rewritten, still pending: %+v", edits)
	}
}

// stageBlob stages content for path without touching the working tree,
// as `git add -p` does.
func stageBlob(t *testing.T, fx *fixtures.Repo, path, content string) {
	t.Helper()
	cmd := fx.Command("git", "hash-object", "-w", "--stdin")
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	fx.Git("update-index", "--add", "--cacheinfo", "100644,"+strings.TrimSpace(string(out))+","+path)
}

func TestHashLineIgnoresLineEnds(t *testing.T) {
	t.Parallel()
	if agent.HashLine("x\r\n") != agent.HashLine("x") || agent.HashLine("x\n") != agent.HashLine("x") || agent.HashLine("x") == agent.HashLine("y") {
		t.Fatal("HashLine must hash the text without its end of line")
	}
}
