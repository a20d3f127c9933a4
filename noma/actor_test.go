package noma

import (
	"context"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// TestDefaultActors pins the two defaults of who made a patch: an unknown
// agent for a request that names nobody, the person running gloss for the
// command line.
func TestDefaultActors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		given *Actor
		want  Actor
	}{
		{nil, Actor{Kind: "agent", Name: "unknown"}},
		{&Actor{Kind: "human"}, Actor{Kind: "agent", Name: "unknown"}},
		{&Actor{Name: "claude"}, Actor{Kind: "agent", Name: "claude"}},
		{&Actor{Kind: "tool", Name: "fmt", Model: "m"}, Actor{Kind: "tool", Name: "fmt", Model: "m"}},
	} {
		if got := requestActor(PatchRequest{Actor: tc.given}); got != tc.want {
			t.Errorf("actor of a request with %+v: %+v, want %+v", tc.given, got, tc.want)
		}
	}

	fx := fixtures.NewRepo(t)
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	ctx := context.Background()
	if got := LocalActor(ctx, repo, "human", "dev"); *got != (Actor{Kind: "human", Name: "dev"}) {
		t.Errorf("named local actor: %+v", got)
	}
	if got := LocalActor(ctx, repo, "agent", ""); *got != (Actor{Kind: "agent", Name: fixtures.UserName}) {
		t.Errorf("unnamed local actor: %+v, want git config user.name %q", got, fixtures.UserName)
	}
}
