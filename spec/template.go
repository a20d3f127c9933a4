package spec

import (
	"fmt"
	"path"
	"strings"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/lazyregexp"
	"github.com/gloss-dev/gloss/safepath"
)

// reSpecName is what `spec new` accepts as a name: words joined by dashes
// or underscores, optionally in folders (api/auth).
var reSpecName = lazyregexp.New(`^[a-z0-9][a-z0-9_-]*(/[a-z0-9][a-z0-9_-]*)*$`)

// Template is a valid starting spec named name that governs the globs
// (none: a placeholder glob to edit). Its comments say what to fill in.
func Template(name string, govern []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# The %s spec: what the files it governs must do. Edit the intent and the\n", name)
	b.WriteString("# behaviors, check it with `git gloss spec validate`, and commit it. After a\n")
	b.WriteString("# review of the governed files, `git gloss spec mark` records them as reconciled.\n")
	b.WriteString("# Format: NotarAI's spec schema (`git gloss schema spec`).\n")
	fmt.Fprintf(&b, "schema_version: '%s'\n", NotarAISchemaVersion)
	fmt.Fprintf(&b, "intent: What %s must achieve, in a sentence or two.\n", name)
	b.WriteString("behaviors:\n")
	b.WriteString("  - name: main_behavior\n")
	b.WriteString("    given: the situation this behavior is about\n")
	b.WriteString("    then: what must happen\n")
	b.WriteString("constraints:\n")
	b.WriteString("  - Something the governed files must never do.\n")
	b.WriteString("artifacts:\n")
	b.WriteString("  code:\n")
	if len(govern) == 0 {
		govern = []string{"src/" + name + "/**"}
	}
	for _, g := range govern {
		fmt.Fprintf(&b, "    - path: %q\n", g)
	}
	return []byte(b.String())
}

// Create writes Template as a new spec file in the repository's specs
// folder and returns its repository-relative path. An existing spec is
// never replaced.
func Create(repo *gitops.Repo, name string, govern []string) (string, error) {
	name = strings.TrimSuffix(name, ".spec.yaml")
	if !reSpecName.MatchString(name) {
		return "", fault.Usagef("spec name %q: use lower-case words joined by - or _, in folders if you like (api, auth/tokens)", name)
	}
	for _, g := range govern {
		if _, err := path.Match(g, ""); err != nil || strings.HasPrefix(g, "/") || strings.Contains(g, "..") {
			return "", fault.Usagef("--govern %q: a repository-relative glob such as src/api/** is needed", g)
		}
	}
	if repo.IsBare() {
		return "", fault.Usagef("spec new needs a working tree")
	}
	layout, err := ResolveLayout(repo.Root())
	if err != nil {
		return "", err
	}
	tree, err := safepath.ForRepo(repo)
	if err != nil {
		return "", err
	}
	defer tree.Close()
	return tree.CreateFile(path.Join(layout.Dir, name+".spec.yaml"), Template(name, govern), 0o644)
}
