// Package buildinfo holds the version of this gloss binary.
package buildinfo

// Version is set at link time by the Makefile
// (-X github.com/gloss-dev/gloss/buildinfo.Version=...).
var Version = "0.1.0-dev"
