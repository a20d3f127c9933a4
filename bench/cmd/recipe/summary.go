package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gloss-dev/gloss/bench"
)

// row is one line of the summary: a figure of every repository, and the
// target it is held to ("" for none).
type row struct {
	label, target string
	value         func(*report) string
}

// summaryRows are the figures the README quotes, in its order. A read
// case is found by the start of its name (bench.RecipeEnv.Cases).
var summaryRows = []row{
	{"`--version` start, vs `git --version`", "≤ 2.5×", readRatio("--version")},
	{"`read --anchor` during the decisions index's build, vs `git blame -L`", "≤ 1×", readRatio("read --anchor, during")},
	{"first `read --anchor` after `init`, vs `git blame -L`", "", readRatio("read --anchor, first after init")},
	{"warm `read --anchor`, vs `git blame -L`", "≤ 0.10×", readRatio("read --anchor, blame cache warm")},
	{"MCP `gloss_read`, p50 of the timed calls", "≤ 30 ms", func(r *report) string {
		if r.mcp == nil {
			return "-"
		}
		return ms(r.mcp.P50)
	}},
	{"hooks added to a 10-file commit after a hooked commit (p50)", "≤ 100 ms", hooksAdded(0)},
	{"the same after a commit made without the hooks", "≤ 100 ms", hooksAdded(1)},
	{"load average (1 min) at start and end", "", func(r *report) string { return r.loadBefore + " – " + r.loadAfter }},
}

func readRatio(prefix string) func(*report) string {
	return func(r *report) string {
		for _, res := range r.reads {
			if strings.HasPrefix(res.Name, prefix) {
				return fmt.Sprintf("%.2f× (CPU %.2f×)", res.Ratio, res.CPURatio)
			}
		}
		return "-"
	}
}

func hooksAdded(i int) func(*report) string {
	return func(r *report) string {
		if i >= len(r.hooks) {
			return "-"
		}
		h := r.hooks[i]
		return fmt.Sprintf("+%s (CPU +%s)", ms(h.Added), ms(h.AddedCPU))
	}
}

// printSummary writes the repositories' figures side by side, as a
// markdown table the README can take whole.
func printSummary(out io.Writer, reports []*report) {
	fmt.Fprintln(out, "\nsummary, one run, beside git (wall, CPU in brackets):")
	head, rule := []string{""}, []string{"---"}
	for _, r := range reports {
		head, rule = append(head, r.name), append(rule, "---")
	}
	fmt.Fprintln(out, tableLine(append(head, "target")))
	fmt.Fprintln(out, tableLine(append(rule, "---")))
	for _, row := range summaryRows {
		cells := []string{row.label}
		for _, r := range reports {
			cells = append(cells, row.value(r))
		}
		fmt.Fprintln(out, tableLine(append(cells, row.target)))
	}
}

// tableLine is one markdown table row.
func tableLine(cells []string) string {
	return strings.TrimSpace("| " + strings.Join(cells, " | ") + " |")
}

// recipeName names a recipe's repository in the summary.
func recipeName(rc bench.Recipe) string {
	switch rc.Rev {
	case bench.FzfRecipe.Rev:
		return "fzf"
	case bench.GitRecipe.Rev:
		return "git/git"
	case bench.GeneratedRecipe.Rev:
		return "generated, 100k commits"
	}
	return rc.Rev
}

// loadAverage is the 1-minute load average, or "?" where the system does
// not say.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}
