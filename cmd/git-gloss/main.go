// Command git-gloss is gloss: git-native memory and coordination for AI
// coding agents. Installed on PATH it runs as `git gloss <command>`; the
// hook shims and MCP clients call it the same way.
//
// GLOSS_CPUPROFILE=FILE writes a CPU profile of the command to FILE, for
// `go tool pprof -top bin/git-gloss FILE`.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/gloss-dev/gloss/cli"
	"github.com/gloss-dev/gloss/runenv"
)

func main() {
	stop := startProfile(os.Getenv(runenv.CPUProfile))
	// The processes gloss starts in the background (a cache fill, the
	// hook worker) would otherwise inherit the variable and overwrite
	// this process's profile with theirs.
	_ = os.Unsetenv(runenv.CPUProfile)
	code := cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// startProfile starts CPU profiling into path when it is set and returns
// what stops it. A profile that cannot be written is reported and skipped:
// profiling must never change what the command does.
func startProfile(path string) (stop func()) {
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
