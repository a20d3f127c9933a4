// Command git-gloss is gloss: git-native memory and coordination for AI
// coding agents. Installed on PATH it runs as `git gloss <command>`; the
// hook shims and MCP clients call it the same way.
package main

import (
	"os"

	"github.com/gloss-dev/gloss/cli"
)

func main() {
	stop := startProfile()
	code := cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
