package agent

import (
	"crypto/sha256"
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/safepath"
	"github.com/gloss-dev/gloss/schemas"
)

// Redaction runs three rule sets, all in gitleaks' configuration format
// and matched the same way (secrets.go):
//
//   - gitleaks' own default rules, whole: the few hundred rules the gitleaks
//     project maintains for cloud keys, tokens, private keys and generic
//     credentials, updated with each release;
//   - gloss's rules (redact.toml, shipped in the binary) for what people
//     paste into prompts and gitleaks, tuned for code, leaves alone: URL
//     passwords, Authorization headers, assignments whose key names a
//     secret, secrets named in a sentence, cloud keys in connection strings
//     (docs/redaction.md lists them);
//   - a team's own rules, .gloss/redact.toml in the repository: data only,
//     rules that add to the others, never an allowlist that would excuse
//     what the others find.
//
// Loading compiles the rules (tens of milliseconds), so only the events
// that store text (a prompt, a commit) pay for it.

//go:embed redact.toml
var glossRulesTOML string

// TeamRulesFile is where a team adds redaction rules of its own.
const TeamRulesFile = ".gloss/redact.toml"

var (
	glossOnce  sync.Once
	glossRules *ruleSet
	glossErr   error
)

func loadGlossRules() (*ruleSet, error) {
	glossOnce.Do(func() { glossRules, glossErr = parseRules(glossRulesTOML) })
	return glossRules, glossErr
}

// Redactor finds and replaces secrets with every rule set that applies to
// a repository.
type Redactor struct {
	sets []*ruleSet
}

// builtin is gitleaks' rules and gloss's.
func builtin() (*Redactor, error) {
	up, err := loadRules()
	if err != nil {
		return nil, err
	}
	own, err := loadGlossRules()
	if err != nil {
		return nil, fmt.Errorf("gloss's redaction rules: %w", err)
	}
	return &Redactor{sets: []*ruleSet{up, own}}, nil
}

// RedactorFor is the redactor of a repository: the built-in rules and the
// team's (TeamRulesFile). A team file that cannot be read or is not valid
// is an error: text that could not be checked with every rule the team
// asked for is not kept.
func RedactorFor(repo *gitops.Repo) (*Redactor, error) {
	r, err := builtin()
	if err != nil {
		return nil, err
	}
	team, err := teamRules(repo)
	if err != nil {
		return nil, err
	}
	if team != nil {
		r.sets = append(r.sets, team)
	}
	return r, nil
}

// teamCache keeps a team file's compiled rules by the hash of its bytes.
var teamCache sync.Map // [32]byte -> *ruleSet

// teamRules reads and compiles TeamRulesFile; nil when there is none.
func teamRules(repo *gitops.Repo) (*ruleSet, error) {
	if repo == nil || repo.Root() == "" {
		return nil, nil
	}
	tree, err := safepath.ForReading(repo)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	data, err := tree.ReadFile(TeamRulesFile, 1<<20)
	if fault.KindOf(err) == fault.NotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", TeamRulesFile, err)
	}
	return ParseTeamRules(data)
}

// ParseTeamRules checks and compiles a team's rules file: gitleaks'
// format, [[rules]] only (each may have its own allowlists, which excuse
// only its own findings). A global allowlist or an [extend] (which names a
// file or the default rules) is refused: a committed file may add rules,
// never take any away.
func ParseTeamRules(data []byte) (*ruleSet, error) {
	key := sha256.Sum256(data)
	if rs, ok := teamCache.Load(key); ok {
		return rs.(*ruleSet), nil
	}
	var top map[string]any
	if _, err := toml.Decode(string(data), &top); err != nil {
		return nil, fault.Usagef("%s: %v", TeamRulesFile, err)
	}
	for k := range top {
		switch k {
		case "title", "description", "rules":
		case "allowlist", "allowlists", "extend":
			return nil, fault.Usagef("%s: [%s] is not allowed here: a team's rules add to gloss's and gitleaks', they never excuse what those find (give a rule its own [[rules.allowlists]] instead)", TeamRulesFile, k)
		default:
			return nil, fault.Usagef("%s: unknown key %s (expected [[rules]])", TeamRulesFile, fault.Quote(k))
		}
	}
	rules, _ := top["rules"].([]map[string]any)
	for i, r := range rules {
		if _, ok := r["regex"].(string); !ok {
			return nil, fault.Usagef("%s: rule %d has no regex", TeamRulesFile, i+1)
		}
		if _, ok := r["id"].(string); !ok {
			return nil, fault.Usagef("%s: rule %d has no id", TeamRulesFile, i+1)
		}
	}
	rs, err := parseRules(string(data))
	if err != nil {
		return nil, fault.Usagef("%s: %v", TeamRulesFile, err)
	}
	teamCache.Store(key, rs)
	return rs, nil
}

// RedactResult is git gloss agent redact's answer.
type RedactResult struct {
	Schema   string   `json:"$schema"`
	Redacted string   `json:"redacted"`
	Rules    []string `json:"rules" jsonschema:"the rule of each secret found, in the order found"`
}

func init() {
	schemas.Register(schemas.Entry{Name: "redact", Tag: "gloss-redact/v1", Description: "Text as gloss keeps it from a prompt (git gloss agent redact).", Type: schemas.TypeOf[RedactResult]()})
}

// Finding is one secret a redactor found: the rule and where.
type Finding struct {
	Rule   string `json:"rule"`
	Secret string `json:"-"`
}

// Find returns what the rule sets find in s.
func (r *Redactor) Find(s string) []Finding {
	var out []Finding
	for _, set := range r.sets {
		for _, f := range findSecrets(set, s) {
			secret := f.secret
			if secret == "" {
				secret = f.match
			}
			if secret != "" {
				out = append(out, Finding{Rule: f.rule, Secret: secret})
			}
		}
	}
	return out
}

// Redact replaces every secret the rule sets find in s with
// [REDACTED:<rule>].
func (r *Redactor) Redact(s string) string {
	if s == "" {
		return ""
	}
	found := r.Find(s)
	// Longest first, so a secret inside a longer match is not left half done.
	sort.SliceStable(found, func(i, j int) bool { return len(found[i].Secret) > len(found[j].Secret) })
	for _, f := range found {
		s = strings.ReplaceAll(s, f.Secret, "[REDACTED:"+f.Rule+"]")
	}
	return s
}

// Redact redacts s with the built-in rule sets (gitleaks' and gloss's).
// When they cannot be loaded it returns "" and the error: text that could
// not be checked is never kept.
func Redact(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	r, err := builtin()
	if err != nil {
		return "", err
	}
	return r.Redact(s), nil
}

// summaryLen bounds a prompt summary, in bytes.
const summaryLen = 240

// Summarize turns a prompt into the short summary gloss keeps: redacted
// first (a cut must not split a secret so that its rule no longer
// matches), then the first lines folded into one, cut at summaryLen.
func (r *Redactor) Summarize(prompt string) string {
	s := strings.Join(strings.Fields(r.Redact(prompt)), " ")
	if len(s) > summaryLen {
		cut := summaryLen
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = strings.TrimSpace(s[:cut]) + "…"
	}
	return s
}

// Summarize is Redactor.Summarize with the built-in rule sets.
func Summarize(prompt string) (string, error) {
	r, err := builtin()
	if err != nil {
		return "", err
	}
	return r.Summarize(prompt), nil
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
