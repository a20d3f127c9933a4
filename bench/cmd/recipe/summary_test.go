package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gloss-dev/gloss/bench"
)

// The summary puts each repository's figure under its own column and
// each case on its own row, found by the start of the case's name.
func TestSummarySideBySide(t *testing.T) {
	fzf := &report{name: "fzf", loadBefore: "0.5", loadAfter: "0.7",
		reads: []bench.RecipeResult{
			{Name: "--version, process start", Ratio: 3.14, CPURatio: 4.2},
			{Name: "read --anchor, blame cache warm", Ratio: 0.1, CPURatio: 0.12},
		},
		mcp:   &bench.MCPResult{P50: 9300 * time.Microsecond},
		hooks: []*bench.HookResult{{Added: 74500 * time.Microsecond, AddedCPU: 78 * time.Millisecond}},
	}
	git := &report{name: "git/git", loadBefore: "1", loadAfter: "2",
		reads: []bench.RecipeResult{{Name: "read --anchor, during the decisions index's build", Ratio: 0.5, CPURatio: 0.6}}}
	var out strings.Builder
	printSummary(&out, []*report{fzf, git})
	want := []string{
		"|  | fzf | git/git | target |",
		"| `--version` start, vs `git --version` | 3.14× (CPU 4.20×) | - | ≤ 2.5× |",
		"| `read --anchor` during the decisions index's build, vs `git blame -L` | - | 0.50× (CPU 0.60×) | ≤ 1× |",
		"| warm `read --anchor`, vs `git blame -L` | 0.10× (CPU 0.12×) | - | ≤ 0.10× |",
		"| MCP `gloss_read`, p50 of the timed calls | 9.3 ms | - | ≤ 30 ms |",
		"| hooks added to a 10-file commit after a hooked commit (p50) | +74.5 ms (CPU +78.0 ms) | - | ≤ 100 ms |",
		"| the same after a commit made without the hooks | - | - | ≤ 100 ms |",
		"| load average (1 min) at start and end | 0.5 – 0.7 | 1 – 2 |  |",
	}
	for _, line := range want {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("summary lacks %q:\n%s", line, out.String())
		}
	}
}
