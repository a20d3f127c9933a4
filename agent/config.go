package agent

import (
	"time"

	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/gitops"
)

// Settings is the [agent] table of .gloss/config.toml: what the agent
// hooks deliver, in tokens (about 4 bytes each).
type Settings struct {
	BudgetSession int `toml:"budget_tokens_session"`
	BudgetEdit    int `toml:"budget_tokens_edit"`
	BudgetPrompt  int `toml:"budget_tokens_prompt"`
	// PromptThreshold is the BM25 score a note needs to be delivered on a
	// prompt; a note must also score at least half the best one, so a
	// single common word does not bring a note along.
	PromptThreshold float64 `toml:"prompt_threshold"`
	// TimeoutMS is each event's time budget; past it the hook answers
	// nothing and the agent goes on.
	TimeoutMS int `toml:"timeout_ms"`
}

// DefaultSettings are the [agent] defaults.
func DefaultSettings() Settings {
	return Settings{BudgetSession: 600, BudgetEdit: 800, BudgetPrompt: 500, PromptThreshold: 1.5, TimeoutMS: 1500}
}

// Timeout is the per-event time budget.
func (s Settings) Timeout() time.Duration {
	if s.TimeoutMS <= 0 {
		return time.Duration(DefaultSettings().TimeoutMS) * time.Millisecond
	}
	return time.Duration(s.TimeoutMS) * time.Millisecond
}

// LoadSettings reads [agent] from the team file, keeping defaults for what
// it does not set. A broken file gives the defaults and the error.
func LoadSettings(repo *gitops.Repo) (Settings, error) {
	s := DefaultSettings()
	cfg, err := config.LoadTeam(repo)
	if err != nil {
		return s, err
	}
	if err := cfg.Section("agent", &s); err != nil {
		return DefaultSettings(), err
	}
	d := DefaultSettings()
	if s.BudgetSession <= 0 {
		s.BudgetSession = d.BudgetSession
	}
	if s.BudgetEdit <= 0 {
		s.BudgetEdit = d.BudgetEdit
	}
	if s.BudgetPrompt <= 0 {
		s.BudgetPrompt = d.BudgetPrompt
	}
	return s, nil
}

// SyncSessions reads [sync] sessions: whether `git gloss sync` exchanges
// refs/notes/gloss/sessions. Off unless the team turns it on.
func SyncSessions(repo *gitops.Repo) bool {
	cfg, err := config.LoadTeam(repo)
	if err != nil {
		return false
	}
	var s struct {
		Sessions bool `toml:"sessions"`
	}
	// Other [sync] keys belong to other settings; only this one is read
	// here, so an "unknown setting" report is not ours to make.
	_ = cfg.Section("sync", &s)
	return s.Sessions
}
