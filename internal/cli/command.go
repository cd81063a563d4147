package cli

import "github.com/spf13/cobra"

// pathArgs is the Args of a command that reads manifests: at least one
// path, or - for stdin.
func pathArgs(command string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usagef("%s needs at least one path, or - to read stdin", command)
		}
		return nil
	}
}

// commandOptions are a command's options that validate their flags,
// then run (kubectl's Validate and Run).
type commandOptions interface {
	validate() error
	run(cmd *cobra.Command, args []string) error
}

// validateThenRun is the RunE of a command whose options validate, then
// run.
func validateThenRun(o commandOptions) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := o.validate(); err != nil {
			return err
		}
		return o.run(cmd, args)
	}
}

// validateReportFlags validates the flags of a command that reports
// findings: -o and --output-file, then --fail-on.
func validateReportFlags(o *output, g *failGate) error {
	if err := o.validate(); err != nil {
		return err
	}
	return g.validate()
}
