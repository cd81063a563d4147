package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/winkube/winkube/internal/report"
	"github.com/winkube/winkube/internal/version"
)

func newVersionCommand(s Streams) *cobra.Command {
	o := &output{}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print winkube's version, the revision it was built from and the Kubernetes releases it models",
		Example: `  winkube version
  winkube version -o json | jq -r .revision`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			in := version.Get()
			return o.render(s, func(w io.Writer, format string, _ bool) error {
				if format == "json" {
					return report.WriteJSON(w, in)
				}
				_, err := fmt.Fprintf(w, "winkube %s\n", in)
				return err
			})
		},
	}
	o.addFlags(cmd.Flags(), "version", "text", "json")
	return cmd
}
