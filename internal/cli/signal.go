package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Interrupted is the cause of a context ended by a signal; Run turns it
// into the shell's exit code for the signal, 128+n (130 for SIGINT, 143
// for SIGTERM).
type Interrupted struct{ Signal syscall.Signal }

func (e Interrupted) Error() string { return fmt.Sprintf("interrupted by %v", e.Signal) }

// Code is the exit code for the signal.
func (e Interrupted) Code() int { return 128 + int(e.Signal) }

// SignalContext returns a context that ends, with an Interrupted cause, at
// the first SIGINT or SIGTERM. Commands stop promptly and clean up (fix
// never leaves a half-written file: it replaces files atomically); a second
// signal exits at once.
func SignalContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			sig, _ := s.(syscall.Signal)
			cancel(Interrupted{sig})
		case <-done:
			return
		}
		select {
		case s := <-ch:
			sig, _ := s.(syscall.Signal)
			os.Exit(Interrupted{sig}.Code())
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// gracefulStop annotates a command for which SIGTERM is the normal way to
// stop (webhook serve drains and exits 0); other commands interrupted by
// a signal exit 128+n.
const gracefulStop = "winkube.io/graceful-stop"

// interruptCode returns the exit code when ctx was ended by a signal.
func interruptCode(ctx context.Context) (int, bool) {
	var in Interrupted
	if errors.As(context.Cause(ctx), &in) {
		return in.Code(), true
	}
	return 0, false
}
