// Command winkube checks, simulates and enforces the rules that keep
// hybrid Linux/Windows Kubernetes clusters working.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/winkube/winkube/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], cli.StdStreams())
	stop()
	os.Exit(code)
}
