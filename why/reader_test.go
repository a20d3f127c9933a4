package why_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gloss-dev/gloss/annotate"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/why"
)

// TestReaderAnswersAsReadAsOfItsFirstRead: a Reader's reads (a review's
// batch) answer what Read answers, one query after the other, and read
// the annotations as of the first: its notes are one snapshot, not the
// ref again per read.
func TestReaderAnswersAsReadAsOfItsFirstRead(t *testing.T) {
	ctx := context.Background()
	fx := seed(t)
	fx.Commit("docs", map[string]string{"docs/a.md": "a\nb\n"})
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	head := fx.Git("rev-parse", "HEAD")
	queries := []why.Query{
		{Path: "lib/client.go", Anchor: "Client.Connect"},
		{Path: "lib/client.go", Lines: &annotate.Lines{Start: 16, End: 16}, Rev: head},
		{Path: "docs/a.md", Rev: head},
		{Path: "lib/lib.go", Anchor: "Parse", Rev: "HEAD~2"},
		{Path: "lib/client.go", Lines: &annotate.Lines{Start: 1, End: 3}},
	}
	rd := why.NewReader(repo)
	defer rd.Close()
	for _, q := range queries {
		want, err := why.Read(ctx, repo, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rd.Read(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := jsonOf(t, got), jsonOf(t, want); a != b {
			t.Errorf("%+v: the Reader answers\n%s\nRead answers\n%s", q, a, b)
		}
	}
	// The notes go away: the Reader still reads its snapshot, a new read
	// sees none.
	fx.Git("update-ref", "-d", notes.Annotations)
	q := queries[1]
	got, err := rd.Read(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Regions) != 1 {
		t.Errorf("the Reader after the notes ref went: %d regions, want the 1 of its snapshot", len(got.Regions))
	}
	now, err := why.Read(ctx, repo, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(now.Regions) != 0 {
		t.Errorf("a new read after the notes ref went: %d regions, want none", len(now.Regions))
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
