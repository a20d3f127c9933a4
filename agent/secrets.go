package agent

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// Secrets are found with gitleaks' rule set (its default configuration,
// maintained by the gitleaks project) matched by gloss itself with the
// semantics of gitleaks' detect package (v8.30.1, detect.go) for one text
// with no file path and no commit. gitleaks' detect package is not linked:
// it brings its archive readers, report templates and terminal styling,
// whose package initialisation (~2 ms) and ~4 MB every git-gloss process
// paid, each hook included, although only the prompt event redacts. The
// config package alone costs ~0.5 ms. agent/secrets_test.go checks this
// matcher against detect on a corpus, and archtest keeps detect out.
//
// gloss differs from detect in two places, both to hide more — for a
// redactor, hiding too much is safe and hiding too little is not:
//   - a composite rule (one with required companion rules) reports its
//     primary match even when the companions are absent; companion-only
//     rules (skipReport) are therefore not run;
//   - the "line" of a finding (checked for the gitleaks:allow signature
//     and by allowlists aimed at the line) is the whole lines the match
//     spans, as detect takes it in a text that ends in a newline. On a last
//     line with no newline after it, detect takes the line to start at the
//     beginning of the text, so that a gitleaks:allow anywhere above
//     excuses a secret there.
// No decoding passes: detect makes none either unless MaxDecodeDepth is
// set, and NewDetectorDefaultConfig leaves it at 0.

// ruleSet is a loaded gitleaks configuration, ready to match.
type ruleSet struct {
	cfg   *config.Config
	rules []config.Rule // in the configuration's order, so results are stable
	// keywords finds, in one pass, which rules' keywords a text holds; the
	// same Aho-Corasick package gitleaks' config uses for stop words.
	keywords *ahocorasick.Trie
}

var (
	rulesOnce sync.Once
	rules     *ruleSet
	rulesErr  error
)

// loadRules parses and compiles gitleaks' default configuration once per
// process (a few hundred regular expressions: tens of milliseconds).
func loadRules() (*ruleSet, error) {
	rulesOnce.Do(func() { rules, rulesErr = parseRules(config.DefaultConfig) })
	return rules, rulesErr
}

// parseRules reads a gitleaks configuration on a private viper instance,
// so that nothing else's settings leak in. gitleaks compiles the regular
// expressions with MustCompile: a bad one (a team's) is an error here,
// not a panic.
func parseRules(toml string) (rs *ruleSet, err error) {
	defer func() {
		if r := recover(); r != nil {
			rs, err = nil, fmt.Errorf("%v", r)
		}
	}()
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(toml)); err != nil {
		return nil, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, err
	}
	words := make([]string, 0, len(cfg.Keywords))
	for k := range cfg.Keywords { // Translate lower-cases keywords
		words = append(words, k)
	}
	sort.Strings(words)
	return &ruleSet{
		cfg:      &cfg,
		rules:    cfg.GetOrderedRules(),
		keywords: ahocorasick.NewTrieBuilder().AddStrings(words).Build(),
	}, nil
}

// finding is one secret: the rule that found it, the whole match, and the
// part of it that is the secret (a capture group, or the match).
type finding struct {
	rule, match, secret string
	line                int
}

const allowSignature = "gitleaks:allow"

// findSecrets returns what the rule set finds in text.
func findSecrets(rs *ruleSet, text string) []finding {
	lower := strings.ToLower(text)
	present := make(map[string]bool)
	for _, m := range rs.keywords.MatchString(lower) {
		present[m.MatchString()] = true
	}
	var found []finding
	for _, r := range rs.rules {
		if applies(r, present) {
			found = append(found, matchRule(rs.cfg, r, text)...)
		}
	}
	return dropCoveredGeneric(found)
}

// applies reports whether rule r is run on a text holding the keywords
// present.
func applies(r config.Rule, present map[string]bool) bool {
	// Companion-only rules serve composite rules, whose primary matches
	// gloss reports on their own (see above).
	if r.SkipReport || r.Regex == nil {
		return false
	}
	// A rule tied to file paths meets the empty path here.
	if r.Path != nil && !r.Path.MatchString("") {
		return false
	}
	if len(r.Keywords) == 0 {
		return true
	}
	for _, k := range r.Keywords {
		if present[k] {
			return true
		}
	}
	return false
}

// matchRule returns rule r's findings in text.
func matchRule(cfg *config.Config, r config.Rule, text string) []finding {
	var found []finding
	for _, m := range r.Regex.FindAllStringIndex(text, -1) {
		start, end := m[0], m[1]
		for start < end && text[start] == '\n' {
			start++
		}
		for end > start && text[end-1] == '\n' {
			end--
		}
		match := text[start:end]
		line := linesAround(text, start, end)
		if strings.Contains(line, allowSignature) {
			continue
		}
		secret, ok := secretOf(r, match)
		if !ok {
			continue
		}
		if r.Entropy != 0 && entropy(secret) <= r.Entropy {
			continue
		}
		f := finding{rule: r.RuleID, match: match, secret: secret, line: strings.Count(text[:start], "\n")}
		if allowed(cfg.Allowlists, f, line) || allowed(r.Allowlists, f, line) {
			continue
		}
		found = append(found, f)
	}
	return found
}

// linesAround returns the whole lines text[start:end] spans, without
// their line ends.
func linesAround(text string, start, end int) string {
	from := strings.LastIndexByte(text[:start], '\n') + 1
	to := strings.IndexByte(text[end:], '\n')
	if to < 0 {
		return text[from:]
	}
	return text[from : end+to]
}

// secretOf picks the secret out of a match as gitleaks does: the rule's
// regular expression is applied to the match alone, and the secret is its
// secretGroup, or else its first non-empty group, or else the whole
// match. ok is false when secretGroup names a group the expression lacks.
func secretOf(r config.Rule, match string) (secret string, ok bool) {
	groups := r.Regex.FindStringSubmatch(match)
	if len(groups) < 2 {
		return match, true
	}
	if r.SecretGroup > 0 {
		if r.SecretGroup >= len(groups) {
			return "", false
		}
		return groups[r.SecretGroup], true
	}
	for _, g := range groups[1:] {
		if g != "" {
			return g, true
		}
	}
	return match, true
}

// entropy is the Shannon entropy of s in gitleaks' form: frequencies of
// runes, divided by the length in bytes.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := make(map[rune]int)
	for _, c := range s {
		counts[c]++
	}
	var e float64
	for _, n := range counts {
		p := float64(n) / float64(len(s))
		e -= p * math.Log2(p)
	}
	return e
}

// allowed reports whether one of the allowlists excuses f, found on line.
// The text has no path and no commit, so path and commit conditions never
// hold (the Allowlist methods answer false for empty ones).
func allowed(lists []*config.Allowlist, f finding, line string) bool {
	for _, a := range lists {
		target := f.secret
		switch a.RegexTarget {
		case "match":
			target = f.match
		case "line":
			target = line
		}
		regex := a.RegexAllowed(target)
		stop, _ := a.ContainsStopWord(f.secret)
		if a.MatchCondition != config.AllowlistMatchAnd {
			if regex || stop {
				return true
			}
			continue
		}
		all := true
		if len(a.Commits) > 0 {
			ok, _ := a.CommitAllowed("")
			all = all && ok
		}
		if len(a.Paths) > 0 {
			all = all && a.PathAllowed("")
		}
		if len(a.Regexes) > 0 {
			all = all && regex
		}
		if len(a.StopWords) > 0 {
			all = all && stop
		}
		if all {
			return true
		}
	}
	return false
}

// dropCoveredGeneric drops a finding of a generic rule when a specific
// rule found, on the same line, a secret that contains it: the specific
// rule names it better.
func dropCoveredGeneric(found []finding) []finding {
	var kept []finding
	for _, f := range found {
		if !isGeneric(f.rule) || !covered(f, found) {
			kept = append(kept, f)
		}
	}
	return kept
}

func covered(f finding, found []finding) bool {
	for _, o := range found {
		if o.line == f.line && o.rule != f.rule && !isGeneric(o.rule) && strings.Contains(o.secret, f.secret) {
			return true
		}
	}
	return false
}

func isGeneric(rule string) bool { return strings.Contains(strings.ToLower(rule), "generic") }
