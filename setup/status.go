package setup

import (
	"context"
	"os"
	"slices"
	"strconv"

	"github.com/gloss-dev/gloss/buildinfo"
	"github.com/gloss-dev/gloss/capture"
	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/gitops"
	"github.com/gloss-dev/gloss/notes"
	"github.com/gloss-dev/gloss/schemas"
)

// Status is what gloss knows about a repository: `git gloss status --json`
// and the MCP tool gloss_status print exactly this.
type Status struct {
	Schema      string        `json:"$schema"`
	Version     string        `json:"version"`
	Repository  RepoInfo      `json:"repository"`
	Initialized bool          `json:"initialized"`
	Setup       SetupInfo     `json:"setup"`
	Refs        []notes.Stats `json:"refs"`
	Hooks       []HookStatus  `json:"hooks"`
	Config      ConfigInfo    `json:"config"`
	MCP         []MCPEntry    `json:"mcp"`
	// LastSync is this clone's last successful git gloss sync; absent
	// when it never synced.
	LastSync *notes.LastSync `json:"last_sync,omitempty"`
	// Backlog is the commits whose annotation and attribution the hooks
	// left to the background worker (a commit that would have waited).
	Backlog capture.Backlog `json:"backlog"`
	Hints   []string        `json:"hints"`
}

// RepoInfo locates the repository.
type RepoInfo struct {
	Root      string `json:"root,omitempty"`
	GitDir    string `json:"git_dir"`
	CommonDir string `json:"common_dir"`
	Bare      bool   `json:"bare"`
	Head      string `json:"head,omitempty"`
	Branch    string `json:"branch,omitempty"`
}

// SetupInfo compares the recorded setup with this binary's.
type SetupInfo struct {
	Recorded int  `json:"recorded"` // SetupVersion of the last init here; 0 if never
	Current  int  `json:"current"`  // SetupVersion of this binary
	Outdated bool `json:"outdated"`
}

// ConfigInfo reports the git config gloss relies on and the team file.
type ConfigInfo struct {
	RewriteRef    bool              `json:"rewrite_ref"`
	DisplayRef    bool              `json:"display_ref"`    // notes.displayRef names the annotations ref: git log prints raw JSON
	FetchRefspecs map[string]bool   `json:"fetch_refspecs"` // remote -> configured
	TeamFile      string            `json:"team_file"`
	TeamPresent   bool              `json:"team_present"`
	TeamSections  []string          `json:"team_sections"`
	Personal      map[string]string `json:"personal"`
}

// MCPEntry is one MCP client configuration that registers gloss.
type MCPEntry struct {
	Client string `json:"client"`
	Path   string `json:"path"`
}

// CollectStatus gathers the status of repo. It reads every gloss notes ref
// in full to count records, which is fast (one pass over each tree).
func CollectStatus(ctx context.Context, repo *gitops.Repo) (*Status, error) {
	st := &Status{
		Schema:  "gloss-status/v1",
		Version: buildinfo.Version,
		Repository: RepoInfo{
			Root: repo.Root(), GitDir: repo.GitDir(), CommonDir: repo.CommonDir(), Bare: repo.IsBare(),
		},
		Refs:     []notes.Stats{},
		Hooks:    []HookStatus{},
		MCP:      []MCPEntry{},
		Hints:    []string{},
		LastSync: notes.ReadLastSync(repo),
	}
	st.Backlog = capture.QueueBacklog(repo)
	st.Repository.Head, _ = repo.Head()
	st.Repository.Branch, _ = repo.HeadBranch()

	refs, err := repo.ListRefs(notes.RefPrefix + "*")
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		_, stats, err := notes.Open(repo, r.Name).ReadAll()
		if err != nil {
			return nil, err
		}
		st.Refs = append(st.Refs, stats)
	}

	if dir, err := repo.HooksDir(ctx); err == nil {
		m, _ := loadManifest(repo)
		for _, name := range Hooks {
			want := Shim(name)
			if m != nil && m.TeamHooks != "" && resolve(dir) == resolve(ownHooksDir(repo)) {
				want = teamShim(repo.Root(), m, name)
			}
			st.Hooks = append(st.Hooks, hookStatus(dir, name, want))
		}
	}

	if v, ok, err := repo.ConfigGet(ctx, setupVersionKey); err != nil {
		return nil, err
	} else if ok {
		st.Setup.Recorded, _ = strconv.Atoi(v)
	}
	st.Setup.Current = SetupVersion
	// A manifest without a recorded version is a setup from before
	// versions were recorded: initialised, and outdated.
	_, manifestErr := os.Stat(manifestPath(repo))
	st.Initialized = st.Setup.Recorded > 0 || manifestErr == nil
	st.Setup.Outdated = st.Initialized && st.Setup.Recorded < SetupVersion

	if err := collectConfig(ctx, repo, st); err != nil {
		return nil, err
	}
	for _, c := range Clients {
		t, err := TargetFor(c, repo.Root(), false)
		if err != nil {
			continue
		}
		if data, err := readTarget(t); err == nil {
			if top, err := parseObject(data); err == nil {
				if raw, ok := top.get(t.Key); ok {
					if servers, err := parseObject(raw); err == nil {
						if _, ok := servers.get(ServerName); ok {
							st.MCP = append(st.MCP, MCPEntry{Client: c, Path: t.Path})
						}
					}
				}
			}
		}
	}
	st.Hints = hints(st)
	return st, nil
}

func collectConfig(ctx context.Context, repo *gitops.Repo, st *Status) error {
	rw, err := repo.ConfigGetAll(ctx, "notes.rewriteRef")
	if err != nil {
		return err
	}
	disp, err := repo.ConfigGetAll(ctx, "notes.displayRef")
	if err != nil {
		return err
	}
	st.Config.RewriteRef = slices.Contains(rw, notes.RefPrefix+"*")
	st.Config.DisplayRef = slices.Contains(disp, notes.Annotations)
	st.Config.FetchRefspecs = map[string]bool{}
	remotes, err := repo.Remotes(ctx)
	if err != nil {
		return err
	}
	for _, r := range remotes {
		specs, err := repo.ConfigGetAll(ctx, "remote."+r+".fetch")
		if err != nil {
			return err
		}
		st.Config.FetchRefspecs[r] = slices.Contains(specs, notes.FetchRefspec(r))
	}
	cfg, err := config.Load(ctx, repo)
	if err != nil {
		return err
	}
	st.Config.TeamFile = config.TeamFile
	st.Config.TeamPresent = cfg.TeamPresent
	st.Config.TeamSections = cfg.Sections()
	if st.Config.TeamSections == nil {
		st.Config.TeamSections = []string{}
	}
	st.Config.Personal = cfg.PersonalAll()
	return nil
}

func hints(st *Status) []string {
	h := []string{}
	switch {
	case st.Repository.Bare:
	case !st.Initialized:
		h = append(h, "gloss is not set up here: run `git gloss init`")
	case st.Setup.Outdated:
		h = append(h, "this repository was set up by an older gloss: run `git gloss init` again")
	default:
		for _, hk := range st.Hooks {
			if !hk.Installed {
				h = append(h, "hook "+hk.Name+" is not installed: run `git gloss init`")
			}
		}
		for r, ok := range st.Config.FetchRefspecs {
			if !ok {
				h = append(h, "remote "+r+" does not fetch gloss notes: run `git gloss init` (or `git gloss sync "+r+"`)")
			}
		}
	}
	if st.Config.DisplayRef {
		h = append(h, "notes.displayRef makes git log print raw gloss JSON: `git gloss init` takes back the one gloss set (git config --unset notes.displayRef otherwise); `git gloss log` is the readable view")
	}
	slices.Sort(h)
	return h
}

func init() {
	schemas.Register(
		schemas.Entry{Name: "status", Tag: "gloss-status/v1", Description: "What gloss knows about a repository (git gloss status --json, MCP gloss_status).", Type: schemas.TypeOf[Status]()},
		schemas.Entry{Name: "init", Tag: "gloss-init/v1", Description: "What git gloss init or git gloss mcp install changed.", Type: schemas.TypeOf[Result]()},
		schemas.Entry{Name: "uninstall", Tag: "gloss-uninstall/v1", Description: "What git gloss uninstall removed.", Type: schemas.TypeOf[Result]()},
	)
}
