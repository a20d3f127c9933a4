package agent

import (
	"sort"
	"strings"
)

// Redaction uses gitleaks' rule set, its default configuration: the
// rules the gitleaks project maintains (a few hundred, for cloud keys,
// tokens, private keys, generic credentials, with entropy checks and
// allowlists), updated with each release. Hand-written patterns would lag
// behind it. Loading it compiles the rules (tens of milliseconds), so only
// the events that store text — a prompt, a commit — pay for it. The rules
// are matched in secrets.go.

// Redact replaces every secret the rule set finds in s with
// [REDACTED:<rule>]. When the rule set cannot be loaded it returns "" and
// the error: text that could not be checked is never kept.
func Redact(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	cfg, err := loadRules()
	if err != nil {
		return "", err
	}
	type span struct {
		secret, rule string
	}
	var found []span
	for _, f := range findSecrets(cfg, s) {
		secret := f.secret
		if secret == "" {
			secret = f.match
		}
		if secret != "" {
			found = append(found, span{secret, f.rule})
		}
	}
	// Longest first, so a secret inside a longer match is not left half done.
	sort.Slice(found, func(i, j int) bool { return len(found[i].secret) > len(found[j].secret) })
	for _, f := range found {
		s = strings.ReplaceAll(s, f.secret, "[REDACTED:"+f.rule+"]")
	}
	return s, nil
}

// summaryLen bounds a prompt summary, in bytes.
const summaryLen = 240

// Summarize turns a prompt into the short summary gloss keeps: redacted
// first (a cut must not split a secret so that its rule no longer
// matches), then the first lines folded into one, cut at summaryLen.
func Summarize(prompt string) (string, error) {
	red, err := Redact(prompt)
	if err != nil {
		return "", err
	}
	s := strings.Join(strings.Fields(red), " ")
	if len(s) > summaryLen {
		cut := summaryLen
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = strings.TrimSpace(s[:cut]) + "…"
	}
	return s, nil
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
