package noma

import (
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Capabilities is the Annex A sidecar <file>.capabilities.yml. It is
// advisory: a patch outside it is applied, with a warning.
type Capabilities struct {
	Ops   []string `yaml:"ops"`
	Allow []string `yaml:"allow"`
	Deny  []string `yaml:"deny"`
	IDs   struct {
		Rename *bool `yaml:"rename"`
	} `yaml:"ids"`
	Blocks map[string][]string `yaml:"blocks"`
}

// LoadCapabilities parses a sidecar.
func LoadCapabilities(data []byte) (*Capabilities, error) {
	var c Capabilities
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("capabilities: %w", cleanYAMLError(err))
	}
	return &c, nil
}

// Advise lists the advisory warnings for op.
func (c *Capabilities) Advise(op Op) []string {
	var out []string
	allowed := append(append([]string{}, c.Ops...), c.Allow...)
	if len(allowed) > 0 && !contains(allowed, op.Name) {
		out = append(out, fmt.Sprintf("capabilities: %s is not among the allowed ops", op.Name))
	}
	if contains(c.Deny, op.Name) {
		out = append(out, fmt.Sprintf("capabilities: %s is denied", op.Name))
	}
	if op.Name == "rename_id" && c.IDs.Rename != nil && !*c.IDs.Rename {
		out = append(out, "capabilities: ids.rename is false")
	}
	if list, ok := c.Blocks[op.anchor()]; ok && !contains(list, op.Name) {
		out = append(out, fmt.Sprintf("capabilities: %s is not allowed on block %q", op.Name, op.anchor()))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// capabilityWarnings reads the sidecar, if any, and returns per-op
// warnings (a broken sidecar is a warning too, never a refusal).
func (s *Store) capabilityWarnings(rel string, ops []Op) [][]any {
	out := make([][]any, len(ops))
	side := strings.TrimSuffix(rel, path.Ext(rel)) + ".capabilities.yml"
	data, err := s.readAll(rel + ".capabilities.yml")
	if err != nil {
		data, err = s.readAll(side)
	}
	if err != nil {
		return out
	}
	warn := func(msg string) any {
		return taggedDiag{d: Diagnostic{Severity: SevWarning, Code: "capability-advisory", Message: msg}, phase: "pre", synthetic: true}
	}
	c, err := LoadCapabilities(data)
	if err != nil {
		out[0] = append(out[0], warn(err.Error()))
		return out
	}
	for i, op := range ops {
		for _, m := range c.Advise(op) {
			out[i] = append(out[i], warn(m))
		}
	}
	return out
}
