// Package runenv spells every GLOSS_* environment variable once. An
// environment variable is a contract between processes that share no
// code — `task work` and the hook of the commit its agent makes, a test
// and the binary it runs — so a name written twice drifts (`task work`
// once set GLOSS_AGENT_MODEL while attribution read GLOSS_MODEL).
// archtest holds the rest of the module to it: no other non-test file
// spells a GLOSS_ name, every GLOSS_ name mentioned anywhere is declared
// here, and the table in docs/design.md lists exactly these.
package runenv

import (
	"os"
	"slices"
	"strings"
)

// Prefix starts every variable of gloss's.
const Prefix = "GLOSS_"

// The agent run: who is committing. `git gloss task work` sets these for
// the agent it launches; anyone may set them around an agent of their
// own. git passes them on to the hooks of the commits that agent makes,
// so that the commit's records and its lines name the agent and model
// instead of the commit's (human) author.
const (
	Agent   = "GLOSS_AGENT"   // the agent's name
	Model   = "GLOSS_MODEL"   // the agent's model
	Session = "GLOSS_SESSION" // the agent's session (a task run: the task id)

	// ModelBefore is the spelling `task work` set in 0.1 (attribution
	// read Model, so a task run's lines lost their model): read when Model
	// is unset, through 0.2; never set.
	ModelBefore = "GLOSS_AGENT_MODEL"
)

// The task: what `git gloss task work` tells the agent it launches.
const (
	TaskID     = "GLOSS_TASK_ID"     // the task's id
	TaskFile   = "GLOSS_TASK_FILE"   // the task's file, relative to the worktree
	TaskPrompt = "GLOSS_TASK_PROMPT" // the prompt (also the command's last argument)
	Worktree   = "GLOSS_WORKTREE"    // the run's worktree
	Branch     = "GLOSS_BRANCH"      // the run's branch
)

// Settings a person may give a gloss process.
const (
	Notebook   = "GLOSS_NOTEBOOK"     // the team notebook's folder (wins over .gloss/config.toml)
	Actor      = "GLOSS_ACTOR"        // who a reconciliation record names (else git's user)
	MCPMaxLine = "GLOSS_MCP_MAX_LINE" // the MCP server's longest message, in bytes
	// ReviewToken is the GitLab token `git gloss review --post` writes the
	// merge request's note with (a project access token, api scope).
	ReviewToken = "GLOSS_REVIEW_TOKEN"
)

// Internal marks the git commands gloss runs itself, so that their hooks
// do not run gloss again.
const Internal = "GLOSS_INTERNAL"

// Test switches: read only by a binary built with the glosstest tag.
const (
	HookFault     = "GLOSS_HOOK_FAULT"      // error|panic|sleep|worker-stall|worker-stall-attribution in the git hooks
	AgentFault    = "GLOSS_AGENT_FAULT"     // error|panic|sleep in the agent hooks
	KillAt        = "GLOSS_TEST_KILL_AT"    // kill the process at a named fault point
	MCPDebugTools = "GLOSS_MCP_DEBUG_TOOLS" // 1: the MCP server offers its debug tools
	CPUProfile    = "GLOSS_CPUPROFILE"      // FILE: write a CPU profile of the command
)

// The harnesses: tests, benchmarks, scripts and the CI files read these;
// the binary never does.
const (
	TestBinary      = "GLOSS_TEST_BINARY"       // the git-gloss the integration tests run
	DistArchive     = "GLOSS_DIST_ARCHIVE"      // the release archive tests/dist checks
	DistYes         = "GLOSS_DIST_YES"          // 1: make dist may install what the static libgit2 build needs (no terminal to ask)
	ReleaseURL      = "GLOSS_RELEASE_URL"       // the base URL scripts/install.sh --version downloads releases from
	Artifacts       = "GLOSS_ARTIFACTS"         // where browser tests leave screenshots
	BenchRepo       = "GLOSS_BENCH_REPO"        // a real clone for the in-process benchmarks
	FzfMirror       = "GLOSS_FZF_MIRROR"        // a clone of fzf for the web view's large-file browser test
	BenchFile       = "GLOSS_BENCH_FILE"        // the file of BenchRepo they read
	BenchHookLog    = "GLOSS_BENCH_HOOKLOG"     // set: the commit benchmark logs the hooks' log
	BenchPacked     = "GLOSS_BENCH_PACKED"      // 1: the forget benchmark packs the notes first
	ForgetOrders    = "GLOSS_FORGET_ORDERS"     // all: tests/hostile runs every order of forget, sync, import and the copies
	ScaleCommits    = "GLOSS_SCALE_COMMITS"     // the size of the generated scale history
	NotesTestRole   = "GLOSS_NOTES_TEST_ROLE"   // the notes race test's child: its role
	NotesTestRepo   = "GLOSS_NOTES_TEST_REPO"   // the notes race test's child: the repository
	NotesTestObject = "GLOSS_NOTES_TEST_OBJECT" // the notes race test's child: the annotated object
	NotesTestWriter = "GLOSS_NOTES_TEST_WRITER" // the notes race test's child: its number
	NotesTestCount  = "GLOSS_NOTES_TEST_COUNT"  // the notes race test's child: records to write
	E2EReal         = "GLOSS_E2E_REAL"          // tests/agent-e2e: the real binary behind the recording wrapper
	E2EDump         = "GLOSS_E2E_DUMP"          // tests/agent-e2e: where the wrapper records hook payloads
	ClientBinary    = "GLOSS_BIN"               // tests/mcp-client: the binary the SDK client starts
	ClientRepo      = "GLOSS_REPO"              // tests/mcp-client: the repository it serves
	DemoDir         = "GLOSS_DEMO_DIR"          // scripts/demo.sh: where the demo repository goes
	DemoPort        = "GLOSS_DEMO_PORT"         // scripts/demo.d: the port of the demo's serve
	GoDir           = "GLOSS_GO_DIR"            // scripts/deps.sh: where Go is installed
	CIVersion       = "GLOSS_VERSION"           // ci/: the gloss version CI installs
	CIPushToken     = "GLOSS_PUSH_TOKEN"        // ci/gitlab: the token CI pushes notes with
)

// Get returns a variable's value, trimmed of surrounding space.
func Get(name string) string { return strings.TrimSpace(os.Getenv(name)) }

// AgentRun is the agent a process works for, as its environment says.
type AgentRun struct {
	Agent, Model, Session string
}

// LookupAgentRun reads Agent, Model (or ModelBefore) and Session through
// getenv (os.Getenv, or the environment a queued job kept). ok is false
// when no agent is named.
func LookupAgentRun(getenv func(string) string) (run AgentRun, ok bool) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	run = AgentRun{Agent: get(Agent), Model: get(Model), Session: get(Session)}
	if run.Model == "" {
		run.Model = get(ModelBefore)
	}
	return run, run.Agent != ""
}

// AgentRunNames are the variables LookupAgentRun reads.
var AgentRunNames = []string{Agent, Model, ModelBefore, Session}

// Environ returns env with the run set: each variable of AgentRunNames
// that env holds is replaced, so that no value of an outer run (nor an
// old spelling) is left for the child to read.
func (r AgentRun) Environ(env []string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return slices.Contains(AgentRunNames, k)
	})
	return append(out, Agent+"="+r.Agent, Model+"="+r.Model, Session+"="+r.Session)
}
