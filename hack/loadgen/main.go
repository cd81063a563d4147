// Command winkube-loadgen sends AdmissionReviews at a fixed rate to a
// `winkube webhook serve` it starts on 127.0.0.1, and prints latency,
// failures, certificate rotation and shutdown figures. It stops by itself;
// hack/bench-webhook.sh runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/winkube/winkube/test/loadgen"
)

func main() {
	var cfg loadgen.Config
	var duration time.Duration
	var serverLog string
	flag.StringVar(&cfg.Binary, "winkube", "winkube", "the winkube binary to run as the server")
	flag.IntVar(&cfg.Rate, "rate", 1000, "requests per second")
	flag.DurationVar(&duration, "duration", 10*time.Second, "how long to send measured requests (sets -requests)")
	flag.IntVar(&cfg.Requests, "requests", 0, "measured requests (overrides -duration)")
	flag.IntVar(&cfg.Connections, "connections", 8, "keep-alive client connections")
	flag.IntVar(&cfg.Rotations, "rotations", 1, "certificate rotations during the run")
	flag.DurationVar(&cfg.DrainDelay, "drain-delay", time.Second, "the server's --drain-delay")
	flag.StringVar(&serverLog, "server-log", "", "file to write the server's log to (default: dropped)")
	flag.Parse()
	if cfg.Requests == 0 {
		cfg.Requests = int(duration.Seconds() * float64(cfg.Rate))
	}
	dir, err := os.MkdirTemp("", "winkube-loadgen")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	cfg.WorkDir = dir
	if serverLog != "" {
		f, err := os.Create(serverLog)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		cfg.ServerLog = f
	} else {
		cfg.ServerLog = io.Discard
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := loadgen.Run(ctx, cfg)
	if err != nil {
		fail(err)
	}
	res.Write(os.Stdout)
	if !res.OK() {
		fmt.Fprintln(os.Stderr, "winkube-loadgen: the run failed (see above)")
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "winkube-loadgen: %v\n", err)
	os.Exit(2)
}
