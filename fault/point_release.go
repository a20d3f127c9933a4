//go:build !glosstest

package fault

// Point marks a step of a multi-step write where a crash must leave
// things recoverable: a kill point for crash tests, in builds with the
// glosstest tag only (point.go). Here it does nothing.
func Point(string) {}
