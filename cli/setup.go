package cli

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gloss-dev/gloss/agent"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notebook"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/setup"
)

// StatusCmd is `git gloss status`.
type StatusCmd struct{}

// Help is the long help of status.
func (StatusCmd) Help() string {
	return `Shows the gloss notes refs with their record counts, which hooks are
installed (and which existing hooks they chain to), the git config gloss
relies on, the team configuration file, personal gloss.* settings and the
MCP clients gloss is registered with. The MCP tool gloss_status returns the
same JSON as --json.`
}

// Run prints the status.
func (c *StatusCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	st, err := setup.CollectStatus(g.ctx, repo)
	if err != nil {
		return err
	}
	return g.emit(st, func(s *styler) { printStatus(s, st) })
}

func printStatus(s *styler, st *setup.Status) {
	where := st.Repository.Root
	if where == "" {
		where = st.Repository.GitDir + " (bare)"
	}
	s.printf("%s %s\n", s.bold("gloss"), s.dim(st.Version))
	s.printf("repository  %s\n", where)
	if st.Repository.Branch != "" {
		s.printf("branch      %s\n", st.Repository.Branch)
	}
	if ls := st.LastSync; ls != nil {
		s.printf("last sync   %s with %s\n", ls.At, ls.Remote)
	}
	switch {
	case !st.Initialized:
		s.printf("setup       %s\n", s.yellow("not initialised"))
	case st.Setup.Outdated:
		s.printf("setup       %s (v%d, this gloss installs v%d)\n", s.yellow("outdated"), st.Setup.Recorded, st.Setup.Current)
	default:
		s.printf("setup       %s (v%d)\n", s.green("ok"), st.Setup.Recorded)
	}

	s.println()
	s.println(s.bold("Notes"))
	if len(st.Refs) == 0 {
		s.println("  " + s.dim("no gloss notes yet"))
	}
	for _, r := range st.Refs {
		bad := ""
		if r.Bad > 0 {
			bad = s.red(fmt.Sprintf(", %d malformed line(s)", r.Bad))
		}
		s.printf("  %-34s %d record(s) on %d commit(s)%s\n", strings.TrimPrefix(r.Ref, "refs/notes/"), r.Records, r.Notes, bad)
	}

	s.println()
	s.println(s.bold("Hooks"))
	for _, h := range st.Hooks {
		line := fmt.Sprintf("  %s %s", s.mark(h.Installed), h.Name)
		if h.Installed && !h.Current {
			line += " " + s.yellow("(older shim)")
		}
		if h.Chained != "" {
			line += " " + s.dim("chains "+filepath.Base(h.Chained))
		}
		s.println(line)
	}

	s.println()
	s.println(s.bold("Git config"))
	s.printf("  %s notes.rewriteRef %s\n", s.mark(st.Config.RewriteRef), s.dim("(annotations follow amend and rebase)"))
	if st.Config.DisplayRef {
		s.printf("  %s notes.displayRef %s\n", s.yellow("!"), s.dim("(git log prints raw gloss JSON; git gloss log is the readable view)"))
	}
	for _, r := range slices.Sorted(maps.Keys(st.Config.FetchRefspecs)) {
		s.printf("  %s fetch %s\n", s.mark(st.Config.FetchRefspecs[r]), notes.FetchRefspec(r))
	}
	team := s.dim("absent")
	if st.Config.TeamPresent {
		team = strings.Join(st.Config.TeamSections, ", ")
		if team == "" {
			team = "present, empty"
		}
	}
	s.printf("  team config %s: %s\n", st.Config.TeamFile, team)
	for _, k := range slices.Sorted(maps.Keys(st.Config.Personal)) {
		s.printf("  %s = %s\n", k, st.Config.Personal[k])
	}

	if len(st.MCP) > 0 {
		s.println()
		s.println(s.bold("MCP"))
		for _, m := range st.MCP {
			s.printf("  %s %s\n", m.Client, s.dim(shown(st.Repository.Root, m.Path)))
		}
	}
	if len(st.Hints) > 0 {
		s.println()
		for _, h := range st.Hints {
			s.println(s.yellow("hint: ") + h)
		}
	}
}

// InitCmd is `git gloss init`.
type InitCmd struct {
	Client []string   `name:"client" enum:"claude,cursor,vscode" default:"claude" help:"MCP client(s) to register gloss with: claude, cursor, vscode."`
	NoMCP  bool       `name:"no-mcp" help:"Do not register gloss with any MCP client."`
	Agents agentsFlag `name:"agents" placeholder:"LIST" help:"Also install the coding agents' hooks (as git gloss agent install): alone, Claude Code plus the agents in use here; --agents=claude,gemini,codex,cursor or all to choose."`
	// Notebook scaffolds an empty notebook. Off by default: files init
	// writes into the working tree show up as changes nobody made.
	Notebook bool `name:"notebook" help:"Also create an empty notebook (its folders and an index note). Without it, the notebook folder is created with its first note."`
}

// Help is the long help of init.
func (InitCmd) Help() string {
	return `Sets gloss up in the current repository. Safe to run again: it only adds
what is missing.

  - installs hook shims (prepare-commit-msg, post-commit, pre-push,
    post-rewrite) where git looks
    for hooks, honouring core.hooksPath and worktrees; an existing hook is
    kept and run first. A hooks folder inside the working tree (husky, a
    team's .githooks) is never written to: the shims go under the git dir,
    core.hooksPath points there for this clone, and each runs the team's
    hook first;
  - sets notes.rewriteRef so that amend and rebase carry gloss notes (it
    does not set notes.displayRef: git log would print raw JSON records;
    git gloss log shows them one readable line each, and init takes back
    the notes.displayRef an earlier gloss set);
  - adds, for every remote, a fetch refspec that brings gloss notes into
    tracking refs (refs/notes/remotes/<remote>/gloss/*). It never adds a push
    refspec (that would change what a plain git push pushes) and never
    fetches into your live notes: git gloss sync merges them;
  - registers the MCP server in .mcp.json (or --client cursor|vscode),
    keeping every other server in that file;
  - with --agents, writes the coding agents' hook configuration and the
    AGENTS.md / CLAUDE.md block, as "git gloss agent install" does.

"git gloss uninstall" removes exactly what init added.`
}

// Run installs gloss.
func (c *InitCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := setup.Init(g.ctx, repo, setup.InitOptions{Clients: c.Client, NoMCP: c.NoMCP, Agents: c.Agents.agents()})
	if err != nil {
		return err
	}
	if c.Notebook {
		if err := scaffoldNotebook(g, repo, res); err != nil {
			return err
		}
	}
	if note := buildGraphAtInit(g, repo); note != "" && !g.JSON {
		fmt.Fprintln(g.stderr, "gloss: "+note)
	}
	if err := g.emit(res, func(s *styler) { printSetupResult(s, repo.Root(), res, "gloss is set up") }); err != nil {
		return err
	}
	return refusedError(res)
}

// scaffoldNotebook creates the notebook folder, or records it as skipped
// when the repository's files make that unsafe (its folder, or .gloss,
// reached through a link into .git or out of the tree).
func scaffoldNotebook(g *Globals, repo *gitops.Repo, res *setup.Result) error {
	nb, err := notebook.Open(g.ctx, repo)
	if err != nil {
		if res.SkipRefused("notebook", err) {
			return nil
		}
		return err
	}
	defer nb.Close()
	created, err := nb.Scaffold()
	if err != nil {
		if res.SkipRefused("notebook", err) {
			return nil
		}
		return err
	}
	for _, p := range created {
		res.Scaffolded = append(res.Scaffolded, path.Join(nb.Rel, p))
	}
	return setup.RecordScaffold(repo, nb.Rel, created)
}

// UninstallCmd is `git gloss uninstall`.
type UninstallCmd struct{}

// Help is the long help of uninstall.
func (UninstallCmd) Help() string {
	return `Removes the hook shims (putting back any hook they chained), the git
config values, the MCP entries, and the agents' hook entries and AGENTS.md /
CLAUDE.md blocks that init, "mcp install" and "agent install" added, as
recorded when they added them, and the notebook scaffold init created while
nobody has changed or committed it. Notes refs and committed gloss files are
your data and stay; delete refs/notes/gloss/* yourself if you want them gone.`
}

// Run uninstalls gloss.
func (c *UninstallCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	res, err := setup.Uninstall(g.ctx, repo)
	if err != nil {
		return err
	}
	return g.emit(res, func(s *styler) { printSetupResult(s, repo.Root(), res, "gloss is uninstalled; notes refs were kept") })
}

func printSetupResult(s *styler, root string, res *setup.Result, done string) {
	verb := func(action string) string {
		switch action {
		case "installed", "added", "updated", "removed":
			return s.green(action)
		}
		return s.dim(action)
	}
	for _, h := range res.Hooks {
		extra := ""
		if h.Chained != "" {
			extra = s.dim(" (runs " + filepath.Base(h.Chained) + " first)")
		}
		s.printf("  hook   %-13s %s%s\n", h.Name, verb(h.Action), extra)
	}
	for _, c := range res.Config {
		s.printf("  config %s = %s %s\n", c.Key, c.Value, verb(c.Action))
	}
	for _, m := range res.MCP {
		s.printf("  mcp    %-6s %s %s\n", m.Client, shown(root, m.Path), verb(m.Action))
	}
	scaffold := "added"
	if res.Schema == "gloss-uninstall/v1" {
		scaffold = "removed"
	}
	for _, p := range res.Scaffolded {
		s.printf("  notebook %s %s\n", p, verb(scaffold))
	}
	for _, a := range res.Agents {
		switch {
		case a.Action == "refused":
			s.printf("  agent  %-6s %s %s\n", a.Agent, s.red("refused"), a.Error)
		default:
			s.printf("  agent  %-6s %s %s %s\n", a.Agent, shown(root, a.Path), verb(a.Action), s.dim(strings.Join(a.Events, ", ")))
		}
	}
	for _, f := range res.Instructions {
		s.printf("  block  %s %s\n", shown(root, f.Path), verb(f.Action))
	}
	for _, sk := range res.Skipped {
		s.printf("  %s %s: %s\n", s.yellow("skipped"), sk.What, sk.Reason)
	}
	if len(res.Skipped) > 0 {
		done += " (except what was skipped: the repository's own files made it unsafe)"
	}
	s.println(s.bold(done))
	for _, a := range res.Agents {
		if a.Note != "" && a.Action != "refused" && a.Action != "removed" && a.Action != "absent" {
			s.println(s.yellow("note: ") + a.Note)
		}
	}
	if len(res.Next) > 0 {
		s.println()
		s.println("Next:")
		for _, n := range res.Next {
			s.println("  " + n)
		}
	}
}

// printSyncPlan is sync --dry-run for people.
func printSyncPlan(s *styler, res *notes.SyncResult, why string) {
	s.printf("dry run: nothing was changed; a sync with %s (%s) would:\n", res.Remote, why)
	for _, m := range res.Merged {
		what := map[string]string{"created": "create from " + m.From, "fast-forward": "fast-forward from " + m.From, "merged": "fetch from " + m.From + " and merge three-way"}[m.Action]
		s.printf("  %s %s\n", s.yellow(what), strings.TrimPrefix(m.Ref, "refs/notes/"))
	}
	for _, p := range res.Pushed {
		s.printf("  %s %s\n", s.yellow("push to "+res.Remote), strings.TrimPrefix(p, "refs/notes/"))
	}
	for _, u := range res.UpToDate {
		s.printf("  %s %s\n", s.dim("up to date"), strings.TrimPrefix(u, "refs/notes/"))
	}
	if len(res.Merged)+len(res.Pushed)+len(res.UpToDate) == 0 {
		s.println("  nothing: no gloss notes on either side yet")
	}
}

// SyncCmd is `git gloss sync`.
type SyncCmd struct {
	Remote   string `arg:"" optional:"" help:"Remote to sync with (default: the one git push would use: the branch's push remote, remote.pushDefault, the branch's remote, the only remote, else origin)."`
	DryRun   bool   `name:"dry-run" short:"n" help:"Say what a sync would fetch, merge and push, changing nothing (the remote is asked for its tips with git ls-remote)."`
	Purge    bool   `name:"purge" help:"Force-update the remote's notes refs whose history a purge here replaced (git gloss forget --purge); prints what it replaces."`
	PruneNow bool   `name:"prune-now" help:"Then run git gc --prune=now, deleting unreachable objects (an old purged history) at once."`
}

// Help is the long help of sync.
func (SyncCmd) Help() string {
	return `Exchanges gloss notes (refs/notes/gloss/*) with a remote:

  1. fetch the remote's gloss notes into refs/notes/remotes/<remote>/gloss/*;
  2. merge each into the local ref three-way, record by record (records are
     JSON Lines with an id): what either side added is kept, a record one
     side deleted stays deleted, an in-place edit is kept; edited on one
     side and deleted on the other: deleted; edited differently on both: the
     same one on every clone (reported as conflicts). Tombstones
     (git gloss forget) are merged first and every merge drops what they
     forget;
  3. push the local refs without force; if someone pushed in between, start
     again from 1 after a random pause (up to 30 rounds; exit 4 if others
     kept pushing first every time).

Which remote: the one named, else the one git push would use for the
current branch (branch.<name>.pushRemote, remote.pushDefault,
branch.<name>.remote), else the only remote, else origin. The output names
it, and the first sync with a remote says that gloss pushes its notes refs
there. --dry-run (-n) says what a sync would do and changes nothing.

Branches are not touched, and nothing is force-fetched into your local
notes. The one force-push is --purge, after git gloss forget --purge: it
replaces the remote's notes ref when its history still holds forgotten text,
with a lease on the tip just fetched, and prints both tips. Without --purge
such a ref is left alone ("purge pending"). A clone whose ref predates a
purge the remote has adopts the new history on a plain sync.`
}

// syncRemote is the remote sync uses when none is named: the one git push
// would use for the current branch, else the only remote, else origin;
// why names the rule that chose it, for the output.
func syncRemote(g *Globals, repo *gitops.Repo) (remote, why string, err error) {
	branch, _ := repo.HeadBranch()
	var keys []string
	if branch != "" {
		keys = append(keys, "branch."+branch+".pushRemote")
	}
	keys = append(keys, "remote.pushDefault")
	if branch != "" {
		keys = append(keys, "branch."+branch+".remote")
	}
	for _, k := range keys {
		if v, ok, _ := repo.ConfigGet(g.ctx, k); ok && v != "" && v != "." {
			return v, k, nil
		}
	}
	out, err := repo.Git(g.ctx, "remote")
	if err != nil {
		return "", "", err
	}
	remotes := strings.Fields(string(out))
	switch {
	case len(remotes) == 0:
		return "", "", fault.Usagef("this repository has no remote to sync gloss notes with: add one (git remote add origin URL) or name one")
	case len(remotes) == 1:
		return remotes[0], "the only remote", nil
	case slices.Contains(remotes, "origin"):
		return "origin", "the default", nil
	}
	return "", "", fault.Usagef("which remote? this repository has %s; name one: git gloss sync REMOTE", strings.Join(remotes, ", "))
}

// Run syncs.
func (c *SyncCmd) Run(g *Globals) error {
	repo, err := g.openRepo()
	if err != nil {
		return err
	}
	defer repo.Close()
	remote, why := c.Remote, "named"
	if remote == "" {
		if remote, why, err = syncRemote(g, repo); err != nil {
			return err
		}
	}
	opts := notes.SyncOptions{Remote: remote, Purge: c.Purge, Sessions: agent.SyncSessions(repo), Progress: func(s string) { g.progress("%s", s) }}
	if c.DryRun {
		res, err := notes.PlanSync(g.ctx, repo, opts)
		if err != nil {
			return err
		}
		return g.emit(res, func(s *styler) { printSyncPlan(s, res, why) })
	}
	if last := notes.ReadLastSync(repo); !g.JSON && (last == nil || last.Remote != remote) {
		// The first sync with a remote is where a person learns what it
		// sends there: said before anything is pushed.
		g.styler().printf("%s gloss fetches, merges and pushes its notes refs (refs/notes/gloss/*) with %s (%s), never your branches; git gloss sync --dry-run shows what a sync would do\n",
			g.styler().yellow("first sync with "+remote+":"), remote, why)
	}
	res, err := notes.Sync(g.ctx, repo, opts)
	g.progressDone()
	if err != nil {
		return err
	}
	if res.SessionPrompts, err = forgetPrompts(repo); err != nil {
		return err
	}
	if c.PruneNow {
		if err := notes.PruneNow(g.ctx, repo); err != nil {
			return err
		}
	}
	return g.emit(res, func(s *styler) {
		for _, m := range res.Merged {
			s.printf("  %s %s %s\n", s.green(m.Action), strings.TrimPrefix(m.Ref, "refs/notes/"), s.dim("from "+m.From))
			for _, c := range m.Conflicts {
				s.printf("    %s %s on %s: kept %s\n", c.Kind, c.ID, c.Object[:min(12, len(c.Object))], c.Kept)
			}
			if len(m.Forgotten) > 0 {
				s.printf("    dropped %d forgotten record(s): %s\n", len(m.Forgotten), strings.Join(m.Forgotten, ", "))
			}
		}
		for _, r := range res.Replaced {
			s.printf("  %s %s on %s: %s (history purged here) replaced by %s\n", s.yellow("force-updated"), strings.TrimPrefix(r.Ref, "refs/notes/"), res.Remote, r.Old, r.New)
		}
		for _, p := range res.PurgePending {
			s.printf("  %s %s: %s still holds history purged here; not pushed. Run git gloss sync --purge %s to replace it\n", s.yellow("purge pending"), strings.TrimPrefix(p, "refs/notes/"), res.Remote, res.Remote)
		}
		for _, p := range res.Pushed {
			s.printf("  %s %s\n", s.green("pushed"), strings.TrimPrefix(p, "refs/notes/"))
		}
		for _, u := range res.UpToDate {
			s.printf("  %s %s\n", s.dim("up to date"), strings.TrimPrefix(u, "refs/notes/"))
		}
		if len(res.Merged)+len(res.Pushed)+len(res.UpToDate) == 0 {
			s.println("  no gloss notes on either side yet")
		}
		s.printf("%s with %s", s.bold("synced"), res.Remote)
		if res.Attempts > 1 {
			s.printf(" after %d rounds (another clone pushed in between)", res.Attempts)
		}
		s.println()
	})
}
