//go:build !glosstest

package guard

// Injected returns the failure a test asks of a door: none, in a build
// without the glosstest tag (the release binary).
func Injected(Door) string { return "" }
