//go:build glosstest

package mcp

import (
	"context"
	"os"
	"time"

	"github.com/gloss-dev/gloss/runenv"
)

// runenv.MCPDebugTools, when set to 1, adds the "debug" toolset: tools that
// panic or take their time on purpose, so the raw-wire tests can prove the
// server survives both. Only a build with the glosstest tag has them
// (debug_release.go); even there they are off unless the environment asks.
func debugEnabled() bool { return os.Getenv(runenv.MCPDebugTools) == "1" }

type sleepInput struct {
	Millis int `json:"millis" jsonschema:"how long to sleep, in milliseconds"`
}

func registerDebug(r *registry) {
	addTool(r, toolDef{Name: "debug_panic", Description: "Panics (test aid)."},
		func(context.Context, *call, struct{}) (any, error) {
			panic("debug_panic was called")
		})
	addTool(r, toolDef{Name: "debug_sleep", Description: "Sleeps, then answers (test aid)."},
		func(ctx context.Context, _ *call, in sleepInput) (any, error) {
			time.Sleep(time.Duration(in.Millis) * time.Millisecond)
			return map[string]any{"$schema": "gloss-debug/v1", "slept_ms": in.Millis}, nil
		})
}
