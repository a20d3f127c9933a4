//go:build glosstest

package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/gloss-dev/gloss/runenv"
)

// startProfile, in a build with the glosstest tag, writes a CPU profile
// of the command to the file runenv.CPUProfile names, for `go tool pprof
// -top bin/git-gloss FILE`, and returns what stops it. A profile that
// cannot be written is reported and skipped: profiling must never change
// what the command does.
func startProfile() (stop func()) {
	path := os.Getenv(runenv.CPUProfile)
	// The processes gloss starts in the background (a cache fill, the
	// hook worker) would otherwise inherit the variable and overwrite
	// this process's profile with theirs.
	_ = os.Unsetenv(runenv.CPUProfile)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "git gloss: "+runenv.CPUProfile+":", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "git gloss: "+runenv.CPUProfile+":", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
