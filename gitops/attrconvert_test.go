package gitops_test

import (
	"os"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/fixtures"
)

// With a .gitattributes that cannot change what git hashes (diff drivers,
// whitespace rules, eol on a file without CR) the worktree blame takes
// the no-diff shortcut; with attributes that can (ident on a file with
// $Id$, text on a file with CRLF, an encoding) it must not. Either way the
// blame equals git blame's.
func TestWorktreeBlameWithAttributes(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	repo := open(t, fx.Dir)
	fx.Commit("attrs", map[string]string{".gitattributes": "* whitespace=trail\n*.c diff=cpp\n*.sh text eol=lf\n"})
	fx.Commit("one", map[string]string{"a.c": "int a;\nint keep;\n", "b.sh": "echo 1\n"})
	fx.Commit("two", map[string]string{"a.c": "int a;\nint keep;\nint x;\n", "b.sh": "echo 1\necho 2\n"})
	for range 2 { // cold, then warm from the cache
		compareBlame(t, repo, "", "a.c", 0, 0)
		compareBlame(t, repo, "", "b.sh", 0, 0)
	}

	// A file committed before an attribute that converts it: its bytes
	// still hash to the committed blob, but git's clean conversion now
	// changes them, so git diff (and git blame) see a change.
	// Written an hour before they are staged: git then trusts the index
	// for them (a racily clean file, one written in the index's second,
	// would be hashed again, and the test would pass by luck).
	fx.Write("w.txt", "one\r\ntwo\r\n")
	fx.Write("id.c", "/* $Id: 1234 $ */\nint y;\n")
	hourAgo := time.Now().Add(-time.Hour)
	for _, f := range []string{"w.txt", "id.c"} {
		if err := os.Chtimes(fx.Path(f), hourAgo, hourAgo); err != nil {
			t.Fatal(err)
		}
	}
	fx.Git("add", "w.txt", "id.c")
	fx.Git("commit", "-q", "-m", "crlf and id")
	compareBlame(t, repo, "", "w.txt", 0, 0) // fills the cache: the next reads are warm
	compareBlame(t, repo, "", "id.c", 0, 0)
	fx.Write(".gitattributes", "*.txt text\n*.c ident\n")
	fx.Git("add", ".gitattributes") // only it: adding w.txt again would convert it
	fx.Git("commit", "-q", "-m", "convert")
	compareBlame(t, repo, "", "w.txt", 0, 0)
	compareBlame(t, repo, "", "id.c", 0, 0)
}
