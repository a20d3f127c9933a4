package annotate

import (
	"strings"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// The trailers gloss reads from commit messages. Keys are
// case-insensitive; each applies to every region of the commit.
//
//	Intent: <why, if the subject does not say it>
//	Reasoning: <how the change works, or why this way>
//	Constraint: <something the code must keep doing>
//	Rejected: <alternative> | <why not>
//	Risk: <what could go wrong>
//	Depends-On: <path>[#<anchor>] [| <nature>]
//	Tags: <tag>, <tag>
var trailerKeys = map[string]string{
	"intent":               "intent",
	"reasoning":            "reasoning",
	"why":                  "reasoning",
	"constraint":           "constraint",
	"constraints":          "constraint",
	"rejected":             "rejected",
	"rejected-alternative": "rejected",
	"risk":                 "risk",
	"risks":                "risk",
	"depends-on":           "dep",
	"tag":                  "tags",
	"tags":                 "tags",
}

// TrailerKeys lists the documented trailer names, for help texts.
const TrailerKeys = "Intent, Reasoning, Constraint, Rejected, Risk, Depends-On, Tags"

var trailerLine = lazyregexp.New(`^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$`)

var cherryPickLine = lazyregexp.New(`\(cherry picked from commit ([0-9a-f]{7,64})\)`)

// message is a commit message taken apart.
type message struct {
	subject  string
	body     string   // without trailers and the cherry-pick line
	trailers []string // "key\x00value" in order, known keys only
	picked   []string // commits named by "(cherry picked from commit X)"
}

// parseMessage splits a commit message into subject, body and trailers.
// The trailer block is the last paragraph when every line in it is a
// "Key: value" line (or an indented continuation).
func parseMessage(msg string) message {
	var m message
	for _, sm := range cherryPickLine.FindAllStringSubmatch(msg, -1) {
		m.picked = append(m.picked, sm[1])
	}
	msg = cherryPickLine.ReplaceAllString(msg, "")
	paras := splitParagraphs(msg)
	if len(paras) == 0 {
		return m
	}
	m.subject = strings.Join(strings.Fields(paras[0]), " ")
	rest := paras[1:]
	if n := len(rest); n > 0 {
		if tr, ok := parseTrailers(rest[n-1]); ok {
			rest = rest[:n-1]
			m.trailers = tr
		}
	}
	m.body = strings.TrimSpace(strings.Join(rest, "\n\n"))
	return m
}

func splitParagraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if p = strings.Trim(p, "\n"); strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

func parseTrailers(para string) ([]string, bool) {
	var out []string
	for _, line := range strings.Split(para, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' { // continuation
			if len(out) > 0 {
				out[len(out)-1] += " " + strings.TrimSpace(line)
			}
			continue
		}
		sm := trailerLine.FindStringSubmatch(line)
		if sm == nil {
			return nil, false
		}
		if key, ok := trailerKeys[strings.ToLower(sm[1])]; ok {
			out = append(out, key+"\x00"+strings.TrimSpace(sm[2]))
		} else {
			out = append(out, "\x00") // Signed-off-by and friends: valid, ignored
		}
	}
	return out, true
}

// apply adds the message's trailers to a context.
func (m message) apply(c *Context) {
	for _, t := range m.trailers {
		key, val, _ := strings.Cut(t, "\x00")
		if val == "" {
			continue
		}
		switch key {
		case "intent":
			c.Intent = val
		case "reasoning":
			c.Reasoning = strings.TrimSpace(c.Reasoning + "\n" + val)
		case "constraint":
			c.Constraints = append(c.Constraints, val)
		case "rejected":
			alt, reason, _ := strings.Cut(val, "|")
			c.RejectedAlternatives = append(c.RejectedAlternatives, Rejected{Text: strings.TrimSpace(alt), Reason: strings.TrimSpace(reason)})
		case "risk":
			c.Risks = append(c.Risks, val)
		case "dep":
			c.Deps = append(c.Deps, ParseDep(val))
		case "tags":
			for _, tag := range strings.Split(val, ",") {
				if tag = strings.TrimSpace(tag); tag != "" {
					c.Tags = append(c.Tags, tag)
				}
			}
		}
	}
}

// ParseDep reads "path[#anchor] [| nature]".
func ParseDep(s string) Dep {
	target, nature, _ := strings.Cut(s, "|")
	target = strings.TrimSpace(target)
	if f := strings.Fields(target); len(f) > 1 && nature == "" {
		target, nature = f[0], strings.Join(f[1:], " ")
	}
	file, anchor, _ := strings.Cut(target, "#")
	return Dep{File: strings.TrimSpace(file), Anchor: strings.TrimSpace(anchor), Nature: strings.TrimSpace(nature)}
}
