package forge

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
)

// Output formats for a check.
const (
	FormatText   = "text"
	FormatGitHub = "github"
)

// DetectFormat picks the output format of the CI the check runs in:
// GitHub Actions sets GITHUB_ACTIONS=true and turns workflow commands into
// annotations on the pull request's lines; elsewhere (GitLab, Jenkins, a
// terminal) plain text, one finding a line as file:line: level: message.
func DetectFormat(env func(string) string) string {
	if env("GITHUB_ACTIONS") == "true" {
		return FormatGitHub
	}
	return FormatText
}

// WriteText prints a report as plain text. Names come from the
// repository (a file may be called "src/evil\n::set-output name=x::1.go"),
// so every name is quoted when it is not plain and every message has its
// control characters escaped: a finding is one line, and no line starts
// with anything but a location or "note:".
func WriteText(w io.Writer, rep *CheckReport) error {
	for _, f := range rep.Findings {
		if _, err := fmt.Fprintf(w, "%s: %s: [%s] %s\n", location(f), f.Level, fault.Line(f.Rule), fault.Line(f.Message)); err != nil {
			return err
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", fault.Line(n))
	}
	_, err := fmt.Fprintln(w, summary(rep))
	return err
}

func location(f Finding) string {
	loc := fault.Quote(f.File)
	if f.File == "" {
		loc = "(repository)"
	}
	if f.Line > 0 {
		loc += fmt.Sprintf(":%d", f.Line)
		if f.Column > 0 {
			loc += fmt.Sprintf(":%d", f.Column)
		}
	}
	return loc
}

func summary(rep *CheckReport) string {
	errs, warns := 0, 0
	for _, f := range rep.Findings {
		switch f.Level {
		case LevelError:
			errs++
		case LevelWarning:
			warns++
		}
	}
	verdict := "passed"
	if rep.Failed {
		verdict = "FAILED"
	}
	return fmt.Sprintf("gloss ci check %s: %d error(s), %d warning(s) in %s..%s (%d spec(s) out of step; %d task file(s), %d document(s) checked)",
		verdict, errs, warns, gitops.ShortID(rep.Base), gitops.ShortID(rep.Head), rep.Checked.Specs, rep.Checked.Tasks, rep.Checked.Documents)
}

// WriteGitHub prints a report as GitHub Actions workflow commands
// (::error file=…,line=…::message), which the runner shows as annotations
// on the files and lines of the pull request.
func WriteGitHub(w io.Writer, rep *CheckReport) error {
	for _, f := range rep.Findings {
		cmd := map[string]string{LevelError: "error", LevelWarning: "warning"}[f.Level]
		if cmd == "" {
			cmd = "notice"
		}
		var props []string
		if f.File != "" {
			props = append(props, "file="+ghProperty(f.File))
			if f.Line > 0 {
				props = append(props, fmt.Sprintf("line=%d", f.Line))
				if f.Column > 0 {
					props = append(props, fmt.Sprintf("col=%d", f.Column))
				}
			}
		}
		props = append(props, "title="+ghProperty("gloss "+f.Rule))
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(f.Message)); err != nil {
			return err
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "::notice title=gloss::%s\n", ghData(n))
	}
	_, err := fmt.Fprintln(w, summary(rep))
	return err
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// SARIF 2.1.0, the subset code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// uriPath makes a repository path a relative URI reference, as SARIF's
// artifactLocation.uri wants: every byte but the unreserved characters,
// '/' and the sub-delimiters that mean nothing in a path is
// percent-encoded. ':' is encoded too, so "a:b.go" cannot parse as a URI
// with the scheme "a"; '#', '?' and '%' so the name is all path.
func uriPath(p string) string {
	const safe = "-._~/!$&'()*+,;=@"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(safe, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// ruleText describes each check for SARIF's rule list.
var ruleText = map[string]string{
	CheckSpec: "A spec governing changed files is invalid or out of step with them (gloss reconciliation).",
	CheckTask: "A changed task file fails gloss task lint.",
	CheckNoma: "A changed .noma document fails Noma validation.",
}

// WriteSARIF writes a report as a SARIF 2.1.0 log, for code scanning
// uploads and other tools that read static-analysis results.
func WriteSARIF(w io.Writer, rep *CheckReport) error {
	run := sarifRun{
		Tool:    sarifTool{Driver: sarifDriver{Name: "gloss", Version: buildinfo.Version, Rules: []sarifRule{}}},
		Results: []sarifResult{},
	}
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		if !seen[f.Rule] {
			seen[f.Rule] = true
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: f.Rule, ShortDescription: sarifMessage{ruleText[f.Check]}})
		}
		file := "."
		if f.File != "" {
			file = uriPath(f.File)
		}
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: file}}}
		if f.Line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Column}
		}
		run.Results = append(run.Results, sarifResult{RuleID: f.Rule, Level: f.Level, Message: sarifMessage{f.Message}, Locations: []sarifLocation{loc}})
	}
	slices.SortFunc(run.Tool.Driver.Rules, func(a, b sarifRule) int { return strings.Compare(a.ID, b.ID) })
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}
