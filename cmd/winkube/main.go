// Command winkube checks, simulates and enforces the rules that keep
// hybrid Linux/Windows Kubernetes clusters working.
package main

import (
	"context"
	"os"

	"github.com/winkube/winkube/internal/cli"
)

func main() {
	ctx, stop := cli.SignalContext(context.Background())
	code := cli.Run(ctx, os.Args[1:], cli.StdStreams())
	stop()
	os.Exit(code)
}
