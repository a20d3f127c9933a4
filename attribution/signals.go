package attribution

import (
	"strings"

	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/lazyregexp"
	"github.com/gloss-dev/gloss/runenv"
)

// knownAgents maps a name found in an identity or trailer to the agent's
// short name.
var knownAgents = []struct{ pattern, name string }{
	{"claude", "claude"}, {"anthropic", "claude"},
	{"codex", "codex"}, {"openai", "codex"},
	{"gemini", "gemini"}, {"google-labs-jules", "jules"}, {"jules", "jules"},
	{"cursor", "cursor"},
	{"copilot", "copilot"},
	{"aider", "aider"},
	{"devin", "devin"},
	{"opencode", "opencode"},
	{"windsurf", "windsurf"}, {"codeium", "windsurf"},
	{"amazon-q", "amazon-q"},
}

// agentIn names the agent an identity ("Name <email>") belongs to, "" if
// none.
func agentIn(identity string) string {
	s := strings.ToLower(identity)
	for _, a := range knownAgents {
		if strings.Contains(s, a.pattern) {
			return a.name
		}
	}
	return ""
}

// agentDomains are email domains only agents commit from.
var agentDomains = map[string]string{
	"anthropic.com": "claude", "openai.com": "codex", "cursor.com": "cursor", "cursor.sh": "cursor", "anysphere.co": "cursor",
	"aider.chat": "aider", "cognition.ai": "devin", "devin.ai": "devin", "codeium.com": "windsurf", "windsurf.com": "windsurf",
	"opencode.ai": "opencode",
}

var identityRE = lazyregexp.New(`^\s*(.*?)\s*(?:<([^>]*)>)?\s*$`)

// agentIdentity names the agent a commit identity ("Name <email>") is,
// "" for a person. People share names with agents (a Jules, a Claude), so
// a name alone counts only when it is exactly an agent's name, or an
// agent's name followed by a product or model word ("Claude Code",
// "aider (gpt-4o)") with a no-reply or missing email; a bot account
// ("copilot-swe-agent[bot]") or an agent vendor's email domain counts
// on its own.
func agentIdentity(identity string) string {
	m := identityRE.FindStringSubmatch(identity)
	name, email := strings.ToLower(m[1]), strings.ToLower(m[2])
	if _, domain, ok := strings.Cut(email, "@"); ok {
		for d, a := range agentDomains {
			if domain == d || strings.HasSuffix(domain, "."+d) {
				return a
			}
		}
	}
	if strings.Contains(name, "[bot]") || strings.Contains(email, "[bot]") {
		return agentIn(name + " " + email)
	}
	first := strings.Trim(strings.Fields(name + " x")[0], "(),")
	for _, a := range knownAgents {
		if name == a.pattern {
			return a.name
		}
		if first == a.pattern && (email == "" || strings.Contains(email, "noreply") || strings.Contains(email, "no-reply")) {
			return a.name
		}
	}
	return ""
}

var (
	trailerRE = lazyregexp.New(`(?mi)^(co-authored-by|agent|gloss-agent|model|gloss-model|generated-by|assisted-by):\s*(.+?)\s*$`)
	parenRE   = lazyregexp.New(`\(([^)]+)\)`)
)

// signalOf reads a commit's agent signal. An agent author, an Agent: or
// Generated-by: trailer, or the agent run's environment (runenv) make the commit's lines ai; a
// person's commit with an agent as Co-authored-by (or Assisted-by) makes
// them mixed: both took part and the record cannot split them per line.
func signalOf(c *gitops.Commit, env func(string) string) *Contributor {
	model := ""
	for _, m := range trailerRE.FindAllStringSubmatch(c.Message, -1) {
		if k := strings.ToLower(m[1]); k == "model" || k == "gloss-model" {
			model = m[2]
		}
	}
	if run, ok := runenv.LookupAgentRun(env); ok {
		return &Contributor{Type: AI, Agent: run.Agent, Model: firstNonEmpty(run.Model, model), Session: run.Session, Basis: BasisEnv}
	}
	if a := agentIdentity(c.AuthorName + " <" + c.AuthorEmail + ">"); a != "" {
		return &Contributor{Type: AI, Agent: a, Model: model, Basis: BasisAuthor}
	}
	var co *Contributor
	for _, m := range trailerRE.FindAllStringSubmatch(c.Message, -1) {
		key, val := strings.ToLower(m[1]), m[2]
		switch key {
		case "agent", "gloss-agent", "generated-by":
			name := agentIdentity(val)
			if name == "" {
				name = agentIn(val)
			}
			if name == "" {
				name = strings.Fields(val)[0]
			}
			return &Contributor{Type: AI, Agent: name, Model: firstNonEmpty(model, parenModel(val)), Basis: BasisTrailer}
		case "co-authored-by", "assisted-by":
			if name := agentIdentity(val); name != "" && co == nil {
				co = &Contributor{Type: Mixed, Agent: name, Model: firstNonEmpty(model, parenModel(val)), Basis: BasisTrailer}
			}
		}
	}
	return co
}

// parenModel takes a model from "aider (gpt-4o) <…>".
func parenModel(v string) string {
	if m := parenRE.FindStringSubmatch(v); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
