//go:build !glosstest

package mcp

// The debug toolset is for tests (debug.go): a build without the
// glosstest tag — the release binary — has none.
func debugEnabled() bool { return false }

func registerDebug(*registry) {}
