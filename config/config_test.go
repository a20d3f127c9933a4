package config_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gloss-dev/gloss/config"
	"github.com/gloss-dev/gloss/fault"
	"github.com/gloss-dev/gloss/fixtures"
	"github.com/gloss-dev/gloss/gitops"
)

type hooksSection struct {
	Timeout string `toml:"timeout"`
	Strict  bool   `toml:"strict"`
}

func TestTeamAndPersonalLayers(t *testing.T) {
	fx := fixtures.NewRepo(t)
	fx.Write(".gloss/config.toml", "[hooks]\ntimeout = \"5s\"\n\n[tasks]\nauto_commit = false\n")
	fx.Git("config", "gloss.annotator", "my-annotator --fast")
	repo, err := gitops.Open(fx.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	cfg, err := config.Load(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	h := hooksSection{Strict: true}
	if err := cfg.Section("hooks", &h); err != nil {
		t.Fatal(err)
	}
	if h.Timeout != "5s" || !h.Strict {
		t.Errorf("hooks section = %+v (defaults must survive)", h)
	}
	var missing hooksSection
	if err := cfg.Section("absent", &missing); err != nil || missing.Timeout != "" {
		t.Errorf("absent section: %+v, %v", missing, err)
	}
	if v, ok := cfg.Personal("annotator"); !ok || v != "my-annotator --fast" {
		t.Errorf("Personal(annotator) = %q, %v", v, ok)
	}
	if got := strings.Join(cfg.Sections(), ","); got != "hooks,tasks" {
		t.Errorf("Sections = %s", got)
	}
}

func TestBadTeamFileIsAUsageErrorWithALine(t *testing.T) {
	_, err := config.Parse([]byte("[hooks]\ntimeout = \n"))
	if err == nil || fault.KindOf(err) != fault.Usage || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("Parse(bad) = %v", err)
	}
	cfg, err := config.Parse([]byte("[hooks]\ntimeuot = \"5s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var h hooksSection
	if err := cfg.Section("hooks", &h); err == nil || !strings.Contains(err.Error(), "hooks.timeuot") {
		t.Errorf("typo not reported: %v", err)
	}
}
