package lsp

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"go.lsp.dev/protocol"
)

// Settings are what a person can turn on or tune, from the client's
// initializationOptions or its "gloss" configuration section (both the
// same shape: {"agentLines": "inlay", "hoverTokens": 800}).
type Settings struct {
	// AgentLines marks agent-written lines: "off" (the default) or
	// "inlay" (an inlay hint at the end of each run of lines an agent
	// wrote, as a gutter blame would).
	AgentLines string `json:"agentLines"`
	// HoverTokens is the hover's budget, about four bytes a token.
	HoverTokens int `json:"hoverTokens"`
}

// defaultHoverTokens fits a hover a person reads without scrolling far,
// and the agent hook's edit budget (800 tokens) all the same.
const defaultHoverTokens = 800

func defaultSettings() Settings { return Settings{AgentLines: "off", HoverTokens: defaultHoverTokens} }

// merge applies the known fields of raw (a settings object, or one with a
// "gloss" member holding it) and ignores the rest; a value out of range
// keeps the current one and is logged.
func (s Settings) merge(raw []byte, log *slog.Logger) Settings {
	var wrapped struct {
		Gloss json.RawMessage `json:"gloss"`
	}
	if json.Unmarshal(raw, &wrapped) == nil && len(wrapped.Gloss) > 0 && string(wrapped.Gloss) != "null" {
		raw = wrapped.Gloss
	}
	var in struct {
		AgentLines  *string `json:"agentLines"`
		HoverTokens *int    `json:"hoverTokens"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		log.Warn("settings ignored: not an object", "error", err)
		return s
	}
	if in.AgentLines != nil {
		switch *in.AgentLines {
		case "off", "inlay":
			s.AgentLines = *in.AgentLines
		default:
			log.Warn("settings: agentLines must be off or inlay", "value", *in.AgentLines)
		}
	}
	if in.HoverTokens != nil {
		if *in.HoverTokens >= 100 && *in.HoverTokens <= 20000 {
			s.HoverTokens = *in.HoverTokens
		} else {
			log.Warn("settings: hoverTokens must be between 100 and 20000", "value", *in.HoverTokens)
		}
	}
	return s
}

// pullSettings asks the client for its "gloss" section (clients that
// have one: VS Code's settings, Neovim's settings table) and applies it.
func (s *server) pullSettings() {
	s.mu.Lock()
	can := s.caps.configuration
	s.mu.Unlock()
	if !can {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	section := "gloss"
	items, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}})
	if err != nil || len(items) == 0 || len(items[0]) == 0 || string(items[0]) == "null" {
		return
	}
	s.applySettings(items[0])
}

// DidChangeConfiguration applies settings pushed by the client, or pulls
// them when the client only says they changed.
func (s *server) DidChangeConfiguration(ctx context.Context, p *protocol.DidChangeConfigurationParams) error {
	if len(p.Settings) == 0 || string(p.Settings) == "null" {
		go s.pullSettings()
		return nil
	}
	s.applySettings(p.Settings)
	return nil
}

func (s *server) applySettings(raw []byte) {
	s.mu.Lock()
	before := s.settings
	s.settings = s.settings.merge(raw, s.log)
	changed := before != s.settings
	s.mu.Unlock()
	if changed {
		go s.refreshViews()
	}
}

func (s *server) currentSettings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}
