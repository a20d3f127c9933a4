package spec

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/safepath"
)

// NotarAISchemaVersion is the newest spec schema_version that the NotarAI
// release teams run accepts. gloss reads every version up to
// SchemaVersion, but advising a bump past what NotarAI accepts would make
// `notarai validate` fail for a team that uses both tools.
const NotarAISchemaVersion = "0.7"

// notaraiSchemaFile is the copy of its schema that `notarai init` writes;
// its schema_version enum lists what that team's NotarAI accepts.
const notaraiSchemaFile = NotarAIDir + "/notarai.spec.json"

// SchemaAdvice says which spec files declare a schema_version older than
// the one to recommend, and what to recommend.
type SchemaAdvice struct {
	Dir    string   `json:"dir"`    // the specs folder
	Oldest string   `json:"oldest"` // the oldest version found
	Target string   `json:"target"` // the version to set
	Files  []string `json:"files"`  // the specs older than Target, sorted
	// Why explains Target in a few words.
	Why string `json:"why"`
}

// Note is the sentence for an agent's initialize hints (schemaNote).
func (a *SchemaAdvice) Note() string {
	return fmt.Sprintf("%d spec file(s) in %s use spec schema %s; %s. Ask the user to set schema_version: '%s' in %s and run `git gloss spec validate`.",
		len(a.Files), a.Dir, a.Oldest, a.Why, a.Target, strings.Join(a.Files, ", "))
}

// Hint is the same advice for a person, one line.
func (a *SchemaAdvice) Hint() string {
	return fmt.Sprintf("%d spec file(s) use spec schema %s; you may set schema_version: '%s' (%s)", len(a.Files), a.Oldest, a.Target, a.Why)
}

// AdviseSchema looks at the specs of the working tree at root and returns
// advice when some declare a schema_version older than the recommended
// one, else nil. The recommendation is the newest version both gloss and
// NotarAI accept: what the repository's own .notarai/notarai.spec.json
// lists when it has one, else NotarAISchemaVersion. Unreadable or
// unversioned files are left to validate.
func AdviseSchema(root string) *SchemaAdvice {
	tree, err := safepath.OpenWorkTree(root)
	if err != nil {
		return nil
	}
	defer tree.Close()
	target, why := recommendedVersion(tree)
	a := olderThan(tree, target)
	if a == nil {
		return nil
	}
	a.Target, a.Why = target, why
	return a
}

// OutdatedSpecs lists the spec files whose schema_version is older than
// this binary's SchemaVersion, with the oldest version found. Advice to
// users should come from AdviseSchema, which never recommends a version
// the repository's NotarAI would reject.
func OutdatedSpecs(root string) (oldest string, files []string) {
	tree, err := safepath.OpenWorkTree(root)
	if err != nil {
		return "", nil
	}
	defer tree.Close()
	if a := olderThan(tree, SchemaVersion); a != nil {
		return a.Oldest, a.Files
	}
	return "", nil
}

// olderThan collects the specs of root's specs folder whose
// schema_version is below version; nil when there are none.
func olderThan(tree *safepath.Tree, version string) *SchemaAdvice {
	layout, err := layoutOfTree(tree)
	if err != nil {
		return nil
	}
	a := &SchemaAdvice{Dir: layout.Dir}
	_ = fs.WalkDir(tree.Root().FS(), layout.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, Suffix) {
			return nil
		}
		data, err := tree.ReadFile(p, 1<<20)
		if err != nil {
			return nil
		}
		var head struct {
			SchemaVersion string `yaml:"schema_version"`
		}
		if yaml.Unmarshal(data, &head) != nil || head.SchemaVersion == "" {
			return nil
		}
		if compareVersions(head.SchemaVersion, version) < 0 {
			a.Files = append(a.Files, p)
			if a.Oldest == "" || compareVersions(head.SchemaVersion, a.Oldest) < 0 {
				a.Oldest = head.SchemaVersion
			}
		}
		return nil
	})
	if len(a.Files) == 0 {
		return nil
	}
	slices.Sort(a.Files)
	return a
}

// recommendedVersion is the newest version gloss and the repository's
// NotarAI both accept, and why.
func recommendedVersion(tree *safepath.Tree) (version, why string) {
	version = NotarAISchemaVersion
	why = fmt.Sprintf("the newest NotarAI accepts is %s (gloss reads %s to %s)", version, SchemaVersions[len(SchemaVersions)-1], SchemaVersion)
	data, err := tree.ReadFile(notaraiSchemaFile, 4<<20)
	if err != nil {
		return version, why
	}
	var local struct {
		Properties struct {
			SchemaVersion struct {
				Enum []string `json:"enum"`
			} `json:"schema_version"`
		} `json:"properties"`
	}
	if json.Unmarshal(data, &local) != nil || len(local.Properties.SchemaVersion.Enum) == 0 {
		return version, why
	}
	newest := ""
	for _, v := range local.Properties.SchemaVersion.Enum {
		if newest == "" || compareVersions(v, newest) > 0 {
			newest = v
		}
	}
	if compareVersions(newest, SchemaVersion) > 0 {
		newest = SchemaVersion
	}
	return newest, fmt.Sprintf("the newest this repository's NotarAI accepts (%s) is %s", notaraiSchemaFile, newest)
}
