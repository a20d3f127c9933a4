package tasks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gloss-dev/gloss/lazyregexp"
)

// LintSettings are the [tasks.lint] thresholds of .gloss/config.toml.
type LintSettings struct {
	// Complexity grades: B, C and D start at these counts.
	CriteriaGrades [3]int `toml:"criteria_grades"`
	FileGrades     [3]int `toml:"file_grades"`
	WordGrades     [3]int `toml:"word_grades"`
	// VagueWords lower confidence; matched as whole words or phrases.
	VagueWords []string `toml:"vague_words"`
	// Verbs that make a bullet an instruction.
	Verbs []string `toml:"imperative_verbs"`
}

func (l *LintSettings) defaults() {
	if l.CriteriaGrades == [3]int{} {
		l.CriteriaGrades = [3]int{4, 6, 8}
	}
	if l.FileGrades == [3]int{} {
		l.FileGrades = [3]int{3, 4, 5}
	}
	if l.WordGrades == [3]int{} {
		l.WordGrades = [3]int{200, 400, 600}
	}
	if l.VagueWords == nil {
		l.VagueWords = []string{"improve", "as needed", "etc", "and related", "similar", "somehow", "various", "and so on"}
	}
	if l.Verbs == nil {
		l.Verbs = strings.Fields("implement add create update fix remove delete refactor rename move write test verify " +
			"document replace extract introduce migrate support handle ensure validate check configure enable disable " +
			"make use return parse expose log measure")
	}
}

// Diagnostic is one rule finding.
type Diagnostic struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// LintResult grades one task (Chant's traffic light) and lists rule
// findings.
type LintResult struct {
	ID            string       `json:"id"`
	Title         string       `json:"title"`
	TrafficLight  string       `json:"traffic_light" jsonschema:"green (ready), yellow (review) or red (refine)"`
	Complexity    string       `json:"complexity"`
	Confidence    string       `json:"confidence"`
	Splittability string       `json:"splittability"`
	ACQuality     string       `json:"ac_quality"`
	Isolation     *string      `json:"isolation" jsonschema:"only for tasks with members"`
	Suggestions   []string     `json:"suggestions"`
	Diagnostics   []Diagnostic `json:"diagnostics"`
}

var taskRef = lazyregexp.New(`\b\d{4}-\d{2}-\d{2}-[0-9a-z]{3}-[0-9a-z]{3}(?:\.\d+)?\b`)

// prose returns the lines of a body that count as text: not blank, not
// headings, not inside code fences.
func prose(body []byte) []string {
	var out []string
	inFence := false
	for _, line := range strings.Split(string(body), "\n") {
		if isFence(line) {
			inFence = !inFence
			continue
		}
		l := strings.TrimSpace(line)
		if inFence || l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func isBullet(l string) bool {
	if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "+ ") {
		return true
	}
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(l) && (l[i] == '.' || l[i] == ')') && l[i+1] == ' '
}

// countWords counts whole-word (or whole-phrase) matches of words in text,
// case-insensitively: "etc" is not found in "fetch", nor "improve" in
// "improvement".
func countWords(text string, words []string) int {
	n := 0
	lower := strings.ToLower(text)
	for _, w := range words {
		re := regexp.MustCompile(`(^|[^\pL\pN])` + regexp.QuoteMeta(strings.ToLower(w)) + `($|[^\pL\pN])`)
		n += len(re.FindAllStringIndex(lower, -1))
	}
	return n
}

func grade(v int, thresholds [3]int) string {
	switch {
	case v >= thresholds[2]:
		return "D"
	case v >= thresholds[1]:
		return "C"
	case v >= thresholds[0]:
		return "B"
	}
	return "A"
}

func worst(gs ...string) string {
	w := "A"
	for _, g := range gs {
		if g > w {
			w = g
		}
	}
	return w
}

// lint grades a task: its facts, then the stages of lintStages, each of
// which fills its part of the result.
func (s *Store) lint(g graph, t *Task) LintResult {
	f := newLintFacts(s.settings.Lint, g, t)
	r := LintResult{ID: t.ID, Title: t.Title, Suggestions: []string{}, Diagnostics: []Diagnostic{}}
	for _, st := range lintStages {
		st.run(f, &r)
	}
	return r
}

// lintFacts is what the stages of lint read: the task, the settings, and
// what is measured of it once.
type lintFacts struct {
	settings LintSettings
	task     *Task
	known    func(id string) bool // whether a task of that id exists
	members  []*Task
	crit     Criteria
	lines    []string // prose lines
	words    int
	headers  int // "## " headings
}

func newLintFacts(l LintSettings, g graph, t *Task) *lintFacts {
	f := &lintFacts{settings: l, task: t, known: func(id string) bool { return g.byID[id] != nil }, members: g.members(t.ID)}
	f.crit = criteriaOf(t.Body)
	f.lines = prose(t.Body)
	f.words = len(strings.Fields(strings.Join(f.lines, " ")))
	for _, line := range strings.Split(string(t.Body), "\n") {
		if strings.HasPrefix(line, "## ") {
			f.headers++
		}
	}
	return f
}

// lintStage is one named step of lint: it reads the facts and fills its
// part of the result.
type lintStage struct {
	name string
	run  func(f *lintFacts, r *LintResult)
}

// lintStages are lint's stages, in order: the traffic light reads the
// grades before it.
var lintStages = []lintStage{
	{"structure", lintStructure},
	{"complexity", lintComplexity},
	{"confidence", lintConfidence},
	{"criteria", lintCriteria},
	{"splittability", lintSplittability},
	{"coupling", lintCoupling},
	{"traffic light", lintTrafficLight},
}

func (r *LintResult) diag(rule, sev, format string, args ...any) {
	r.Diagnostics = append(r.Diagnostics, Diagnostic{rule, sev, fmt.Sprintf(format, args...)})
}

// lintStructure reports what makes the task unreadable or inconsistent:
// a parse error, no title, unknown dependencies, an approval that does not
// hold together (Chant's validate_approval_schema, src/cmd/spec/lint.rs).
func lintStructure(f *lintFacts, r *LintResult) {
	t := f.task
	if t.parseErr != nil {
		r.diag("parse", "error", "%v", t.parseErr)
	}
	if t.Title == "" {
		r.diag("title", "error", "no title: the body needs a '# ' heading")
	}
	for _, d := range t.DependsOn {
		if !f.known(d) {
			r.diag("dependency", "error", "depends on unknown task %s", d)
		}
	}
	a := t.Approval
	if a == nil {
		return
	}
	variant := map[string]string{ApprovalApproved: "Approved", ApprovalRejected: "Rejected"}[a.Status]
	switch {
	case a.Status != ApprovalPending && variant == "":
		r.diag("approval", "error", "Invalid approval status: %s. Must be one of: pending, approved, rejected", a.Status)
	case variant != "":
		if a.By == "" {
			r.diag("approval", "error", "Approval status is %s but 'by' field is missing", variant)
		}
		if a.At == "" {
			r.diag("approval", "error", "Approval status is %s but 'at' timestamp is missing", variant)
		}
	case a.By != "":
		r.diag("approval", "error", "Approval has 'by' field set but status is still 'pending'")
	}
}

// lintComplexity grades the size of the task: criteria, target files,
// words, the worst of the three.
func lintComplexity(f *lintFacts, r *LintResult) {
	l, files := f.settings, len(f.task.TargetFiles)
	r.Complexity = worst(grade(f.crit.Total, l.CriteriaGrades), grade(files, l.FileGrades), grade(f.words, l.WordGrades))
	if f.crit.Total > 10 {
		r.diag("complexity", "warning", "%d acceptance criteria; consider splitting", f.crit.Total)
	}
	if files > 5 {
		r.diag("complexity", "warning", "%d target files; consider splitting", files)
	}
}

// lintConfidence grades how clearly the task says what to do: the share
// of bullets among its lines, of instructions among its bullets, and its
// vague words.
func lintConfidence(f *lintFacts, r *LintResult) {
	l := f.settings
	bullets, imperative := 0, 0
	for _, line := range f.lines {
		if !isBullet(line) {
			continue
		}
		bullets++
		text := strings.TrimSpace(strings.TrimLeft(line, "-*+0123456789.) "))
		text = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(text, "[ ]"), "[x]"), "[X]"))
		first := strings.ToLower(strings.Trim(strings.SplitN(text, " ", 2)[0], ",.:;"))
		for _, v := range l.Verbs {
			if first == v || first == v+"s" {
				imperative++
				break
			}
		}
	}
	vague := countWords(f.task.Title+"\n"+strings.Join(f.lines, "\n"), l.VagueWords)
	switch {
	case len(f.lines) == 0:
		r.Confidence = "D"
	default:
		ratio := float64(bullets) / float64(len(f.lines))
		verbs := 0.0
		if bullets > 0 {
			verbs = float64(imperative) / float64(bullets)
		}
		switch {
		case ratio < 0.10 || vague > 8:
			r.Confidence = "D"
		case ratio > 0.60 && verbs > 0.80 && vague == 0:
			r.Confidence = "A"
		case ratio > 0.30 && verbs > 0.50 && vague < 3:
			r.Confidence = "B"
		default:
			r.Confidence = "C"
		}
	}
	if vague > 0 {
		r.Suggestions = append(r.Suggestions, fmt.Sprintf("replace %d vague word(s) (%s) with specifics", vague, strings.Join(l.VagueWords[:min(3, len(l.VagueWords))], ", ")))
	}
}

// lintCriteria grades the acceptance criteria by their number.
func lintCriteria(f *lintFacts, r *LintResult) {
	switch {
	case f.crit.Total == 0:
		r.ACQuality = "D"
		r.Suggestions = append(r.Suggestions, "add a '## Acceptance Criteria' section with '- [ ]' items")
	case f.crit.Total == 1:
		r.ACQuality = "C"
	case f.crit.Total <= 3:
		r.ACQuality = "B"
	default:
		r.ACQuality = "A"
	}
}

// lintSplittability grades (advisory) how well the task would split, and
// the isolation of the members of one already split.
func lintSplittability(f *lintFacts, r *LintResult) {
	files := len(f.task.TargetFiles)
	switch {
	case len(f.members) > 0, f.crit.Total == 1:
		r.Splittability = "C"
	case f.headers >= 3 && files >= 3:
		r.Splittability = "A"
	case f.headers >= 1 && f.headers <= 2 && files == 2:
		r.Splittability = "B"
	default:
		r.Splittability = "C"
	}
	if countWords(string(f.task.Body), []string{"depends on each other", "tightly coupled"}) > 0 && r.Splittability < "C" {
		r.Splittability = "D"
	}
	if len(f.members) > 0 {
		iso := isolation(f.members)
		r.Isolation = &iso
	}
}

// lintCoupling warns of a body that names another task (drivers may name
// their members): depends_on says it.
func lintCoupling(f *lintFacts, r *LintResult) {
	t := f.task
	if t.Type == "driver" || t.Type == "group" {
		return
	}
	for _, ref := range taskRef.FindAllString(string(t.Body), -1) {
		if ref != t.ID && driverOf(ref) != t.ID {
			r.diag("coupling", "warning", "the body names task %s; use depends_on instead", ref)
			return
		}
	}
}

// lintTrafficLight turns the grades into Chant's traffic light: red when
// one is D, green when all are B or better, else yellow.
func lintTrafficLight(_ *lintFacts, r *LintResult) {
	switch {
	case r.Complexity == "D" || r.Confidence == "D" || r.ACQuality == "D":
		r.TrafficLight = "red"
	case r.Complexity <= "B" && r.Confidence <= "B" && r.ACQuality <= "B":
		r.TrafficLight = "green"
	default:
		r.TrafficLight = "yellow"
	}
	if r.Complexity >= "C" {
		r.Suggestions = append(r.Suggestions, "split it into smaller tasks (task_split)")
	}
}

// isolation grades how independent members are: cross-references between
// siblings and shared target files lower it.
func isolation(members []*Task) string {
	if len(members) == 1 {
		return "A"
	}
	free := 0
	files := map[string]int{}
	total := 0
	for _, m := range members {
		refs := false
		for _, ref := range taskRef.FindAllString(string(m.Body), -1) {
			if ref != m.ID && driverOf(ref) == driverOf(m.ID) {
				refs = true
			}
		}
		if !refs {
			free++
		}
		for _, f := range m.TargetFiles {
			files[f]++
			total++
		}
	}
	shared := 0
	for _, n := range files {
		if n > 1 {
			shared += n
		}
	}
	freeShare := float64(free) / float64(len(members))
	overlap := 0.0
	if total > 0 {
		overlap = float64(shared) / float64(total)
	}
	switch {
	case freeShare <= 0.5 || overlap > 0.5:
		return "D"
	case freeShare > 0.9 && overlap < 0.2:
		return "A"
	case freeShare > 0.7:
		return "B"
	}
	return "C"
}
