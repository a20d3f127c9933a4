package agent

import (
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// Secrets in this file are generated or split, so that the repository
// itself holds nothing a scanner would flag.

// gen returns n characters from alphabet, the same ones on every run for a
// given seed.
func gen(seed uint64, alphabet string, n int) string {
	r := rand.New(rand.NewPCG(seed, 19))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum  = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	upper2 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	digits = "0123456789"
	b64url = alnum + "_-"
	hexa   = "0123456789abcdef"
)

type secretCase struct {
	name, text string
	// none: gitleaks finds nothing here (a check that the case means what
	// its name says).
	none bool
	// differs: why gloss finds more here than gitleaks (see secrets.go).
	differs string
}

func secretCorpus() []secretCase {
	ghp := "gh" + "p_" + gen(1, alnum, 36)
	ghp2 := "gh" + "p_" + gen(2, alnum, 36)
	fine := "github" + "_pat_" + gen(3, alnum+"_", 82)
	ghs := "gh" + "s_" + gen(4, alnum, 36)
	ghu := "gh" + "u_" + gen(5, alnum, 36)
	akia := "AK" + "IA" + gen(6, upper2, 16)
	asia := "AS" + "IA" + gen(7, upper2, 16)
	awsSecret := gen(8, alnum+"+/", 40)
	xoxb := "xo" + "xb-" + gen(9, digits, 12) + "-" + gen(10, digits, 13) + "-" + gen(11, alnum, 24)
	xoxp := "xo" + "xp-" + gen(12, digits, 11) + "-" + gen(13, digits, 11) + "-" + gen(14, digits, 12) + "-" + gen(15, hexa, 32)
	webhook := "https://hooks." + "slack.com/services/T" + gen(16, upper2, 8) + "/B" + gen(17, upper2, 8) + "/" + gen(18, alnum, 24)
	stripe := "sk" + "_live_" + gen(19, alnum, 24)
	stripeTest := "rk" + "_test_" + gen(20, alnum, 30)
	openai := "sk-" + "proj-" + gen(21, b64url, 74) + "T3Blbk" + "FJ" + gen(22, b64url, 74)
	openaiOld := "sk-" + gen(23, alnum, 20) + "T3Blbk" + "FJ" + gen(24, alnum, 20)
	anthropic := "sk-ant-" + "api03-" + gen(25, alnum, 93) + "AA"
	gcp := "AI" + "za" + gen(26, b64url, 35)
	jwt := "ey" + gen(27, alnum, 30) + ".ey" + gen(28, alnum, 60) + "." + gen(29, b64url, 43)
	glpat := "gl" + "pat-" + gen(30, alnum, 20)
	npm := "np" + "m_" + gen(31, strings.ToLower(alnum[:36])+digits, 36)
	hf := "h" + "f_" + gen(32, alnum[:52], 34)
	key := "-----BEGIN " + "RSA PRIVATE KEY-----\n" + gen(33, alnum+"+/", 64) + "\n" + gen(34, alnum+"+/", 64) + "\n" + gen(35, alnum+"+/", 40) + "==\n-----END RSA " + "PRIVATE KEY-----"
	keyOpenSSH := "-----BEGIN " + "OPENSSH PRIVATE KEY-----\n" + gen(36, alnum+"+/", 70) + "\n" + gen(37, alnum+"+/", 70) + "\n-----END OPENSSH " + "PRIVATE KEY-----\n"
	hiEntropy := gen(38, alnum, 32)
	dbPass := gen(39, alnum+"!#%", 20)
	bearer := gen(40, alnum, 40)
	return []secretCase{
		{name: "github pat in a sentence", text: "please push with " + ghp + " to the fork"},
		{name: "two github pats", text: "old " + ghp + "\nnew " + ghp2 + "\n"},
		{name: "github fine-grained pat", text: "GITHUB_TOKEN=" + fine},
		{name: "github app and user tokens", text: "server: " + ghs + " user: " + ghu},
		{name: "github pat of low entropy", text: "a token looks like " + "gh" + "p_" + strings.Repeat("a", 36), none: true},
		{name: "aws access key and secret", text: "aws_access_key_id = " + akia + "\naws_secret_access_key = " + awsSecret + "\n"},
		{name: "aws session key", text: "export AWS_ACCESS_KEY_ID=" + asia},
		{name: "aws documentation key", text: "use " + "AKIA" + "IOSFODNN7" + "EXAMPLE" + " as in the docs", none: true},
		{name: "slack bot token", text: "SLACK_BOT_TOKEN: " + xoxb},
		{name: "slack user token", text: "token " + xoxp + " expires"},
		{name: "slack webhook", text: "post to " + webhook + " when done"},
		{name: "stripe live key", text: "stripe.api_key = '" + stripe + "'"},
		{name: "stripe restricted test key", text: "STRIPE=" + stripeTest + "\n"},
		{name: "openai project key", text: "OPENAI_API_KEY=" + openai},
		{name: "openai legacy key", text: "client = OpenAI(api_key=\"" + openaiOld + "\")"},
		{name: "anthropic key", text: "ANTHROPIC_API_KEY=" + anthropic + "\n"},
		{name: "gcp api key", text: "maps key: " + gcp + " (restricted)"},
		{name: "jwt", text: "Authorization: Bearer " + jwt},
		{name: "gitlab pat", text: "git clone https://oauth2:" + glpat + "@gitlab.com/x/y.git"},
		{name: "npm token", text: "//registry.npmjs.org/:_authToken=" + npm},
		{name: "huggingface token", text: "HF_TOKEN=" + hf},
		{name: "rsa private key block", text: "here is the key:\n" + key + "\nkeep it safe"},
		{name: "openssh private key, text ends in newline", text: keyOpenSSH},
		{name: "generic api_key, high entropy", text: `api_key = "` + hiEntropy + `"`},
		{name: "generic password line, high entropy", text: "db:\n  password: " + dbPass + "\n  host: db.internal\n"},
		{name: "generic secret in json", text: `{"client_secret": "` + gen(41, alnum, 28) + `", "id": 7}`},
		{name: "generic token, low entropy", text: `api_key = "aaaaaaaabbbbbbbb"`, none: true},
		{name: "generic password, placeholder", text: "password: changeme", none: true},
		{name: "generic key from an environment variable", text: `token = "${API_TOKEN}"`, none: true},
		{name: "generic key, stop word", text: `access_key = "` + "example" + gen(42, alnum, 20) + `"`, none: true},
		{name: "sendgrid key", text: "SENDGRID_API_KEY=" + "S" + "G." + gen(49, alnum, 22) + "." + gen(50, alnum+"_-", 43)},
		{name: "twilio key", text: "twilio sid " + "S" + "K" + gen(51, hexa, 32)},
		{name: "ec private key and a pat in one prompt", text: "-----BEGIN " + "EC PRIVATE KEY-----\n" + gen(52, alnum+"+/", 64) + "\n" + gen(53, alnum+"+/", 32) + "==\n-----END EC " + "PRIVATE KEY-----\nalso " + glpat},
		{name: "curl with a user", text: "curl -u admin:" + gen(43, alnum, 16) + " https://api.example.com/v1"},
		{name: "curl with a bearer header", text: `curl -H "Authorization: Bearer ` + bearer + `" https://api.internal/`},
		// gitleaks has no rule for a password in a URL.
		{name: "url with credentials", text: "DATABASE_URL=postgres://app:" + gen(44, alnum, 22) + "@db.internal:5432/app", none: true},
		{name: "gitleaks:allow on the secret's line", text: "fixture " + ghp + " // gitleaks" + ":allow\nmore text\n"},
		{name: "gitleaks:allow on another line", text: "fixture " + ghp + "\nthis line says gitleaks" + ":allow\n"},
		{
			name:    "gitleaks:allow above a secret on the last line",
			text:    "notes (gitleaks" + ":allow)\nand then " + ghp2,
			differs: "detect's line for a last line with no newline is the text from its start",
		},
		{
			name:    "docker secret mount above a generic secret on the last line",
			text:    "RUN --mount=type=secret,id=x make\napi_key = \"" + gen(45, alnum, 30) + "\"",
			differs: "detect's line for a last line with no newline is the text from its start",
		},
		{name: "docker secret mount on the secret's line", text: "RUN --mount=type=secret,id=" + gen(46, alnum, 30) + " make\n", none: true},
		{name: "javascript import of names like keys", text: "import { Tokenize, Kp9Xw2Lm7Qz4 } from 'lib'\n", none: true},
		{name: "generic key, entropy just above the threshold", text: `api_key = "Kp9Xw2Lm7Qz4"`},
		{name: "generic key, entropy just below the threshold", text: `api_key = "Kp9Xw2Lm7Qz"`, none: true},
		{name: "generic key excused by a global regex", text: `api_key = "Xk9falseQz7Lm2Pw8Rt4"`, none: true},
		{name: "generic key excused by a global stop word", text: `secret_key = "abcdefghijklmnopqrstuvwxyz0123456789"`, none: true},
		{name: "multi-line prompt", text: "Fix the deploy script.\n\nIt fails with 403 using " + ghp + ".\nThe AWS key is " + akia + " and the slack hook " + webhook + "\nThanks!"},
		{name: "prompt with code and no secret", text: "func main() {\n\tkey := os.Getenv(\"KEY\")\n\tfmt.Println(len(key))\n}\n", none: true},
		{name: "plain prose", text: "Refactor the parser so that it handles nested blocks, then add tests.", none: true},
		{name: "git commit hashes", text: "compare 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39 with HEAD~2", none: true},
		{name: "invalid utf-8 around a token", text: "\xff\xfe token " + ghp + " \xc3\x28 end"},
		{name: "invalid utf-8 in a generic secret", text: "secret = \"" + gen(47, alnum, 20) + "\xff\xfe" + gen(48, alnum, 8) + "\"", none: true},
		{name: "unicode around a key", text: "clé AWS : «" + akia + "» — merci"},
		{name: "crlf lines", text: "token=" + ghp + "\r\npassword=" + dbPass + "\r\n"},
		{name: "empty-looking input", text: "   \n\t\n", none: true},
	}
}

type secretKey struct{ rule, secret string }

func gitleaksFinds(t *testing.T, d *detect.Detector, text string) map[secretKey]bool {
	t.Helper()
	got := map[secretKey]bool{}
	for _, f := range d.DetectString(text) {
		got[secretKey{f.RuleID, f.Secret}] = true
	}
	return got
}

func glossFinds(t *testing.T, text string) map[secretKey]bool {
	t.Helper()
	cfg, err := loadRules()
	if err != nil {
		t.Fatal(err)
	}
	got := map[secretKey]bool{}
	for _, f := range findSecrets(cfg, text) {
		got[secretKey{f.rule, f.secret}] = true
	}
	return got
}

func keys(m map[secretKey]bool) []string {
	var s []string
	for k := range m {
		s = append(s, k.rule+"="+k.secret)
	}
	sort.Strings(s)
	return s
}

// TestSecretsMatchGitleaks checks gloss's matcher against gitleaks' own
// detector on the same rule set: the same (rule, secret) pairs, except
// where gloss deliberately finds more; and Redact leaves nothing gitleaks
// finds.
func TestSecretsMatchGitleaks(t *testing.T) {
	t.Parallel()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	if d.MaxDecodeDepth != 0 {
		t.Fatalf("detect decodes (depth %d): gloss does not", d.MaxDecodeDepth)
	}
	corpus := secretCorpus()
	up, err := loadRules()
	if err != nil {
		t.Fatal(err)
	}
	upstreamOnly := &Redactor{sets: []*ruleSet{up}}
	found := 0
	for _, c := range corpus {
		want := gitleaksFinds(t, d, c.text)
		got := glossFinds(t, c.text)
		found += len(want)
		for k := range want {
			if !got[k] {
				t.Errorf("%s: gloss misses %s=%q (gloss %q)", c.name, k.rule, k.secret, keys(got))
			}
		}
		extra := 0
		for k := range got {
			if !want[k] {
				extra++
			}
		}
		// detect's findings in a text that ends in a newline are gloss's:
		// the differences all come from a last line without one.
		if nl := gitleaksFinds(t, d, c.text+"\n"); !equalKeys(nl, got) {
			t.Errorf("%s: gloss finds %q, gitleaks with a final newline %q", c.name, keys(got), keys(nl))
		}
		switch {
		case c.differs == "" && extra > 0:
			t.Errorf("%s: gloss finds %q, gitleaks %q", c.name, keys(got), keys(want))
		case c.differs != "" && extra == 0:
			t.Errorf("%s: expected gloss to find more than gitleaks (%s); both find %q", c.name, c.differs, keys(got))
		case c.none && len(want) > 0:
			t.Errorf("%s: gitleaks finds %q here", c.name, keys(want))
		}
		out, err := Redact(c.text)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range d.DetectString(c.text) {
			s := f.Secret
			if s == "" {
				s = f.Match
			}
			if strings.Contains(out, s) {
				t.Errorf("%s: Redact leaves %s's secret %q in %q", c.name, f.RuleID, s, out)
			}
		}
		// gloss's own rules redact more (redact.toml): gitleaks' alone
		// leave these as they are.
		if up := upstreamOnly.Redact(c.text); c.none && up != c.text {
			t.Errorf("%s: gitleaks' rules changed text with no secret: %q", c.name, up)
		}
	}
	// A corpus gitleaks finds little in would show little.
	if found < 40 {
		t.Errorf("gitleaks finds only %d secrets in %d cases", found, len(corpus))
	}
	t.Logf("%d cases, %d secrets found by gitleaks", len(corpus), found)
}

func BenchmarkRedact(b *testing.B) {
	if _, err := loadRules(); err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for sb.Len() < 2048 {
		sb.WriteString("Please update the handler so that the retry loop backs off; the token " +
			"gh" + "p_" + gen(uint64(sb.Len()), alnum, 36) + " is in the config and password: hunter22.\n")
	}
	prompt := sb.String()[:2048]
	b.SetBytes(int64(len(prompt)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Redact(prompt); err != nil {
			b.Fatal(err)
		}
	}
}

// A composite rule's match counts for gitleaks only with its companions
// near it; gloss redacts it alone too (secrets.go says why).
func TestCompositeRuleRedactsThePrimaryAlone(t *testing.T) {
	t.Parallel()
	const toml = `
[[rules]]
id = "acme-key"
regex = '''acme_[a-z0-9]{16}'''
keywords = ["acme_"]
[[rules.required]]
id = "acme-account"
withinLines = 1

[[rules]]
id = "acme-account"
regex = '''account=[0-9]{6}'''
skipReport = true
`
	cfg, err := parseRules(toml)
	if err != nil {
		t.Fatal(err)
	}
	d := detect.NewDetector(*cfg.cfg)
	primary := "acme_" + gen(60, "abcdefghijklmnopqrstuvwxyz0123456789", 16)
	for _, c := range []struct {
		text         string
		gitleaksFind bool
	}{
		{"key " + primary + "\naccount=123456\n", true},
		{"key " + primary + "\n\n\naccount=123456\n", false},
		{"key " + primary + " alone\n", false},
	} {
		want := map[secretKey]bool{}
		for _, f := range d.DetectString(c.text) {
			want[secretKey{f.RuleID, f.Secret}] = true
		}
		got := map[secretKey]bool{}
		for _, f := range findSecrets(cfg, c.text) {
			got[secretKey{f.rule, f.secret}] = true
		}
		only := map[secretKey]bool{{"acme-key", primary}: true}
		if c.gitleaksFind != (len(want) > 0) || (len(want) > 0 && !equalKeys(want, only)) {
			t.Errorf("%q: gitleaks finds %q", c.text, keys(want))
		}
		if !equalKeys(got, only) {
			t.Errorf("%q: gloss finds %q, want the primary alone", c.text, keys(got))
		}
	}
}

func equalKeys(a, b map[secretKey]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
