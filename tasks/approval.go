package tasks

import (
	"context"
	"fmt"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/frontmatter"
)

// Approval is Chant's approval gate, read and written as Chant does
// (https://github.com/lex00/chant/blob/ec4a403/src/spec/frontmatter.rs,
// struct Approval): required, status pending|approved|rejected (pending
// when absent), and who decided and when.
type Approval struct {
	Required bool   `json:"required" yaml:"required"`
	Status   string `json:"status" yaml:"status"`
	By       string `json:"by,omitempty" yaml:"by,omitempty"`
	At       string `json:"at,omitempty" yaml:"at,omitempty"`
}

// Approval statuses.
const (
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
)

// decodeApproval reads the approval mapping; nil when there is none.
func decodeApproval(fm *yaml.Node) *Approval {
	v := frontmatter.Lookup(fm, "approval")
	if v == nil || v.Kind != yaml.MappingNode {
		return nil
	}
	a := &Approval{Status: ApprovalPending}
	for i := 0; i+1 < len(v.Content); i += 2 {
		val := v.Content[i+1]
		if val.Kind != yaml.ScalarNode {
			continue
		}
		switch v.Content[i].Value {
		case "required":
			a.Required = val.Value == "true"
		case "status":
			if val.Value != "" {
				a.Status = val.Value
			}
		case "by":
			a.By = val.Value
		case "at":
			a.At = val.Value
		}
	}
	return a
}

// awaiting is Chant's requires_approval(): approval is required and not
// granted (pending or rejected).
func (a *Approval) awaiting() bool {
	return a != nil && a.Required && a.Status != ApprovalApproved
}

// gate says why an approval holds a task back, as a blocker entry.
func (a *Approval) gate() string {
	if a.Status == ApprovalRejected {
		s := "approval rejected"
		if a.By != "" {
			s += " by " + a.By
		}
		return s
	}
	return "approval " + a.Status
}

// ApproveInput is task_approve's input (Chant: `chant approve <id> --by`).
type ApproveInput struct {
	ID string `json:"id"`
	By string `json:"by,omitempty" jsonschema:"default: git user.name"`
}

// RejectInput is task_reject's input (Chant: `chant reject <id> --by --reason`).
type RejectInput struct {
	ID     string `json:"id"`
	By     string `json:"by,omitempty" jsonschema:"default: git user.name"`
	Reason string `json:"reason,omitempty"`
}

// Approve grants a task's approval as `chant approve` does: status
// approved with who and when (UTC, %Y-%m-%dT%H:%M:%SZ), a line under
// "## Approval Discussion", one commit.
func (s *Store) Approve(ctx context.Context, in ApproveInput) (*Message, error) {
	return s.decide(ctx, in.ID, in.By, ApprovalApproved, "")
}

// Reject refuses a task's approval as `chant reject` does; the task stays
// blocked until someone approves it.
func (s *Store) Reject(ctx context.Context, in RejectInput) (*Message, error) {
	return s.decide(ctx, in.ID, in.By, ApprovalRejected, in.Reason)
}

func (s *Store) decide(ctx context.Context, id, by, status, reason string) (*Message, error) {
	if err := checkText("by", by, reason); err != nil {
		return nil, err
	}
	by = strings.TrimSpace(by)
	if by == "" {
		name, _, err := s.repo.ConfigGet(ctx, "user.name")
		if err != nil || strings.TrimSpace(name) == "" {
			return nil, fault.Usagef("say who decides: --by NAME (or set git config user.name)")
		}
		by = strings.TrimSpace(name)
	}
	if strings.ContainsAny(by, "\n\r") {
		return nil, fault.Usagef("Invalid by: one line only")
	}
	unlock, err := s.writeLock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, err := s.Resolve(id)
	if err != nil {
		return nil, err
	}
	if t.parseErr != nil {
		return nil, fault.Checkf("Task '%s' cannot be changed: %v", t.ID, t.parseErr)
	}
	a := Approval{Status: ApprovalPending}
	if t.Approval != nil {
		a = *t.Approval
	}
	if status == ApprovalApproved && a.Status == ApprovalApproved {
		msg := fmt.Sprintf("Task %s is already approved", t.ID)
		if a.By != "" {
			msg += " by " + a.By
		}
		return message(t.ID, "%s", msg), nil
	}
	from := a.Status
	now := time.Now()
	a.Status, a.By, a.At = status, by, now.UTC().Format("2006-01-02T15:04:05Z")
	if err := t.set("approval", a.node()); err != nil {
		return nil, err
	}
	entry := fmt.Sprintf("**%s** - %s - %s", by, now.Format("2006-01-02 15:04"), strings.ToUpper(status))
	if status == ApprovalRejected && strings.TrimSpace(reason) != "" {
		entry += "\n" + strings.TrimSpace(reason)
	}
	t.Body = appendDiscussion(t.Body, entry)
	if err := s.save(t); err != nil {
		return nil, err
	}
	if err := s.record(ctx, t.ID, "approval "+from+" -> "+status, t.Path); err != nil {
		return nil, err
	}
	if status == ApprovalApproved {
		return message(t.ID, "Task %s approved by %s", t.ID, by), nil
	}
	if reason = strings.TrimSpace(reason); reason != "" {
		return message(t.ID, "Task %s rejected by %s: %s", t.ID, by, reason), nil
	}
	return message(t.ID, "Task %s rejected by %s", t.ID, by), nil
}

// appendDiscussion adds an entry to the "## Approval Discussion" section,
// creating it at the end when missing, as Chant's
// append_to_approval_discussion does
// (https://github.com/lex00/chant/blob/ec4a403/src/cmd/spec/approve.rs).
func appendDiscussion(body []byte, entry string) []byte {
	const header = "## Approval Discussion"
	b := string(body)
	pos := strings.Index(b, header)
	if pos < 0 {
		return []byte(strings.TrimRight(b, " \t\r\n") + "\n\n" + header + "\n\n" + entry + "\n")
	}
	at := pos + len(header)
	if next := strings.Index(b[at:], "\n## "); next >= 0 {
		at += next
	} else {
		at = len(b)
	}
	out := strings.TrimRight(b[:at], " \t\r\n") + "\n\n" + entry + b[at:]
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return []byte(out)
}

// node is the approval mapping as Chant's serde_yaml writes it: required,
// status, by, at, with the timestamp plain (`at: 2026-02-01T14:45:12Z`),
// not quoted as a string that looks like a timestamp would be.
func (a Approval) node() *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	add := func(k string, v *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, v)
	}
	add("required", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(a.Required)})
	add("status", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: a.Status})
	if a.By != "" {
		add("by", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: a.By})
	}
	if a.At != "" {
		add("at", &yaml.Node{Kind: yaml.ScalarNode, Value: a.At})
	}
	return m
}
