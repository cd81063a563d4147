package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/manifest"
	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/version"
)

// Exit codes.
const (
	ExitClean    = 0 // nothing at or above --fail-on
	ExitFindings = 1 // something at or above --fail-on
	ExitError    = 2 // usage error or tool failure
)

// Streams are the command's standard streams.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
	// OutIsTerminal reports whether Out is a terminal (colour, progress).
	OutIsTerminal bool
}

// StdStreams returns the process's streams.
func StdStreams() Streams {
	return Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, OutIsTerminal: isTerminal(os.Stdout)}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// exitError carries an exit code through cobra.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError marks a mistake in the command line: exit 2, no stack of help.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// Run runs winkube with args and returns the exit code.
func Run(ctx context.Context, args []string, s Streams) int {
	if s.In != nil {
		// A read of stdin blocks until input arrives; this one also ends
		// when ctx does, so a signal stops a command waiting on a terminal.
		s.In = manifest.ContextReader(ctx, s.In)
	}
	root := NewRoot(s)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if code, ok := interruptCode(ctx); ok && !(err == nil && cmd.Annotations[gracefulStop] == "true") {
		fmt.Fprintf(s.Err, "winkube: %v\n", context.Cause(ctx))
		return code
	}
	var ee exitError
	switch {
	case err == nil:
		return ExitClean
	case errors.As(err, &ee):
		return ee.code
	}
	// API servers and registries write into errors; they reach a terminal.
	fmt.Fprintf(s.Err, "error: %s\n", report.CleanLines(err.Error()))
	return ExitError
}

// NewRoot builds the command tree.
func NewRoot(s Streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "winkube",
		Short: "Keep hybrid Linux/Windows Kubernetes clusters working",
		Long: `winkube checks Kubernetes manifests against what Windows nodes support, predicts
what the control plane will do with them in a hybrid cluster, and enforces the
same rules at admission.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Get().String(),
	}
	// Installed as kubectl-winkube, the binary is a kubectl plugin: help
	// and examples read "kubectl winkube ...".
	if strings.HasPrefix(filepath.Base(os.Args[0]), "kubectl-") {
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl winkube"}
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		newLintCommand(s),
		newRulesCommand(s),
		newFixCommand(s),
		newSimulateCommand(s),
		newWebhookCommand(s),
		newImagesCommand(s),
		newAuditCommand(s),
		newDoctorCommand(s),
		newNodeConfigCommand(s),
		newPolicyCommand(s),
		newPlanCommand(s),
		newVersionCommand(s),
	)
	root.SetVersionTemplate("winkube {{.Version}}\n")
	return root
}
