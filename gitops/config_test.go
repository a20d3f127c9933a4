package gitops_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
)

// TestConfigInProcessMatchesGit reads the same keys in process (libgit2)
// and through git itself (forced by GIT_CONFIG_COUNT, which only git
// reads) and wants the same answers: multi-valued keys in file order, an
// included file, mixed-case names, missing keys, a value git wrote a
// moment ago, and core.hooksPath and the remotes.
func TestConfigInProcessMatchesGit(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Commit("first", map[string]string{"a.txt": "a\n"})
	fx.Write("extra.cfg", "[gloss]\n\tFromInclude = yes\n[notes]\n\tdisplayRef = refs/notes/included\n")
	fx.Git("config", "--add", "notes.displayRef", "refs/notes/one")
	fx.Git("config", "include.path", "../extra.cfg")
	fx.Git("config", "--add", "notes.displayRef", "refs/notes/two")
	fx.Git("config", "gloss.setupVersion", "7")
	fx.Git("config", "Gloss.Sub.Key", "sub")
	fx.Git("config", "core.hooksPath", ".githooks")
	fx.Git("remote", "add", "zeta", "https://example.com/z.git")
	fx.Git("remote", "add", "alpha", "https://example.com/a.git")
	repo := open(t, fx.Dir)
	ctx := context.Background()

	type answers struct {
		Get, Missing string
		Set, MissSet bool
		All          []string
		Match        [][2]string
		Hooks        string
		Remotes      []string
	}
	read := func() answers {
		var a answers
		var err error
		if a.Get, a.Set, err = repo.ConfigGet(ctx, "gloss.SETUPVERSION"); err != nil {
			t.Fatal(err)
		}
		if a.Missing, a.MissSet, err = repo.ConfigGet(ctx, "gloss.nothing"); err != nil {
			t.Fatal(err)
		}
		if a.All, err = repo.ConfigGetAll(ctx, "notes.displayRef"); err != nil {
			t.Fatal(err)
		}
		if a.Match, err = repo.ConfigMatching(ctx, `^gloss\.`); err != nil {
			t.Fatal(err)
		}
		if a.Hooks, err = repo.HooksDir(ctx); err != nil {
			t.Fatal(err)
		}
		if a.Remotes, err = repo.Remotes(ctx); err != nil {
			t.Fatal(err)
		}
		return a
	}
	lib := read()
	t.Setenv("GIT_CONFIG_COUNT", "0") // git reads it, libgit2 does not: git answers now
	cli := read()
	if !reflect.DeepEqual(lib, cli) {
		t.Fatalf("in process:\n%+v\ngit:\n%+v", lib, cli)
	}
	if lib.Get != "7" || len(lib.All) != 3 || lib.All[2] != "refs/notes/included" || len(lib.Match) != 3 {
		t.Errorf("unexpected answers: %+v", lib)
	}

	// A value git writes between two reads through the same handle is seen.
	t.Setenv("GIT_CONFIG_COUNT", "")
	fx.Git("config", "gloss.setupVersion", "8")
	if v, _, _ := repo.ConfigGet(ctx, "gloss.setupVersion"); v != "8" {
		t.Errorf("after git config: gloss.setupVersion = %q, want 8", v)
	}
}
