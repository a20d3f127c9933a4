package hooks

import (
	"slices"
	"testing"

	"github.com/gloss-dev/gloss/setup"
)

// TestHandlesExactlyTheInstalledHooks: gloss handles, with a time limit,
// exactly the hooks setup installs, so no shim runs `git gloss hook` for a
// name gloss refuses, and no handler waits for a hook nobody installs.
func TestHandlesExactlyTheInstalledHooks(t *testing.T) {
	t.Parallel()
	for _, name := range setup.Hooks {
		if !Known(name) {
			t.Errorf("setup installs the %s hook, which gloss does not handle", name)
		}
		if defaultTimeout[name] == 0 {
			t.Errorf("the %s hook has no time limit", name)
		}
	}
	for name := range handlers {
		if !slices.Contains(setup.Hooks, name) {
			t.Errorf("gloss handles %s, which setup does not install", name)
		}
	}
}
