package agent

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

// TestCredentialCorpusIsRedacted: every credential of the corpus (50 kinds
// of what people paste into prompts) is gone from the redacted prompt and
// from its summary. It also reports which kinds gitleaks' rules alone miss
// (nine, issue 28 found: URL passwords, .env lines, a Bearer header, a
// Heroku key, aws_secret_access_key).
func TestCredentialCorpusIsRedacted(t *testing.T) {
	t.Parallel()
	corpus := fixtures.Credentials()
	if len(corpus) < 40 {
		t.Fatalf("%d kinds of credentials, want at least 40", len(corpus))
	}
	up, err := loadRules()
	if err != nil {
		t.Fatal(err)
	}
	upstreamOnly := &Redactor{sets: []*ruleSet{up}}
	missedUpstream := 0
	for _, c := range corpus {
		out, err := Redact(c.Prompt)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, c.Secret) {
			t.Errorf("%s: the secret stays in %q", c.Kind, out)
		}
		sum, err := Summarize(c.Prompt)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(sum, c.Secret) || strings.Contains(sum, strings.Join(strings.Fields(c.Secret), " ")) {
			t.Errorf("%s: the secret stays in the summary %q", c.Kind, sum)
		}
		if strings.Contains(upstreamOnly.Redact(c.Prompt), c.Secret) {
			missedUpstream++
			t.Logf("gitleaks' rules alone miss: %s", c.Kind)
		}
	}
	t.Logf("%d kinds; gitleaks' rules alone miss %d, with gloss's rules 0", len(corpus), missedUpstream)
}

// TestGlossRulesLeaveOrdinaryText: text a prompt often holds and that is
// no secret stays as it is (a false positive costs a word, but a rule that
// fires on everything would make summaries useless).
func TestGlossRulesLeaveOrdinaryText(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"Refactor the parser so that it handles nested blocks, then add tests.",
		"mkdir -p build && cd build && cmake ..",
		"ssh -p 2222 ops@bastion and docker run -p 8080:80 nginx",
		"connect to postgres://localhost:5432/orders without a password",
		"clone git@github.com:org/repo.git or https://github.com/org/repo",
		"the Authorization header is missing on the preflight request",
		"read the password from ${DB_PASSWORD} or os.Getenv(\"API_TOKEN\")",
		"password: string; token?: string; apiKey: string | null",
		"the key is to keep the token bucket small",
		"set DATABASE_PASSWORD in the environment, never in the code",
		"PWD=/home/dev/src make test",
		"the password is required and the token was rotated yesterday",
		"primary key: id, sort key: created_at",
		"compare 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 with HEAD~2 in the aws console",
		"heroku ps:scale web=2 after the release",
	} {
		out, err := Redact(text)
		if err != nil {
			t.Fatal(err)
		}
		if out != text {
			t.Errorf("ordinary text changed:\n  %q\n  %q", text, out)
		}
	}
}

// TestEveryGlossRuleIsTestedAndListed: each rule of redact.toml catches at
// least one credential of the corpus that the others would not, or at
// least one (for rules that share their ground), and is listed in
// docs/redaction.md.
func TestEveryGlossRuleIsTestedAndListed(t *testing.T) {
	t.Parallel()
	own, err := loadGlossRules()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(fixtures.ModuleRoot(), "docs", "redaction.md"))
	if err != nil {
		t.Fatal(err)
	}
	fired := map[string]int{}
	for _, c := range fixtures.Credentials() {
		for _, f := range findSecrets(own, c.Prompt) {
			fired[f.rule]++
		}
	}
	for _, extra := range []string{"Authorization: " + gen(70, alnum, 32), "Ocp-Apim-Subscription-Key: " + gen(71, alnum, 32), "--client-secret " + gen(72, alnum, 24)} {
		for _, f := range findSecrets(own, extra) {
			fired[f.rule]++
		}
	}
	for _, r := range own.rules {
		if fired[r.RuleID] == 0 {
			t.Errorf("rule %s catches nothing in the corpus", r.RuleID)
		}
		if !strings.Contains(string(doc), "`"+r.RuleID+"`") {
			t.Errorf("rule %s is not listed in docs/redaction.md", r.RuleID)
		}
	}
	if len(own.rules) < 10 {
		t.Errorf("%d rules", len(own.rules))
	}
}

// TestTeamRules: a team adds a rule in .gloss/redact.toml (its own token
// format); a global allowlist or an [extend] is refused, so a committed
// file can never excuse what the built-in rules find.
func TestTeamRules(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewRepo(t)
	fx.Commit("base", map[string]string{"README.md": "x\n"})
	repo := openTestRepo(t, fx)
	token := "ACME-" + gen(73, "0123456789", 12)
	prompt := "the partner token " + token + " and " + "gh" + "p_" + gen(74, alnum, 36)
	r, err := RedactorFor(repo)
	if err != nil {
		t.Fatal(err)
	}
	if out := r.Redact(prompt); !strings.Contains(out, token) {
		t.Fatalf("without the team's rule the internal token should stay: %q", out)
	}
	fx.Write(TeamRulesFile, `
[[rules]]
id = "acme-partner-token"
description = "ACME partner tokens"
regex = '''\bACME-[0-9]{12}\b'''
keywords = ["acme-"]
`)
	r, err = RedactorFor(repo)
	if err != nil {
		t.Fatal(err)
	}
	out := r.Redact(prompt)
	if strings.Contains(out, token) || !strings.Contains(out, "[REDACTED:acme-partner-token]") || strings.Contains(out, "gh"+"p_") {
		t.Errorf("with the team's rule: %q", out)
	}
	for name, bad := range map[string]string{
		"global allowlist": "[allowlist]\nregexes = ['''.*''']\n",
		"allowlists":       "[[allowlists]]\nregexes = ['''.*''']\n",
		"extend":           "[extend]\nuseDefault = false\n",
		"no regex":         "[[rules]]\nid = \"x\"\n",
		"bad regex":        "[[rules]]\nid = \"x\"\nregex = '''(unclosed'''\n",
		"not toml":         "[[rules\n",
	} {
		fx.Write(TeamRulesFile, bad)
		if _, err := RedactorFor(repo); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

var redactedMark = regexp.MustCompile(`\[REDACTED:[a-z0-9-]+\]`)

// TestRedactKeepsTheSentence: redaction replaces the secret, not the
// sentence around it.
func TestRedactKeepsTheSentence(t *testing.T) {
	t.Parallel()
	c := fixtures.Credentials()[0]
	out, err := Redact(c.Prompt)
	if err != nil {
		t.Fatal(err)
	}
	if got := redactedMark.ReplaceAllString(out, "X"); got != strings.Replace(c.Prompt, c.Secret, "X", 1) {
		t.Errorf("redacted %q, want only the password replaced", out)
	}
}

func openTestRepo(t *testing.T, fx *fixtures.Repo) *gitops.Repo {
	t.Helper()
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(repo.Close)
	return repo
}
