package cli

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Tree returns the command tree, wired to empty streams, for the generated
// CLI reference (internal/docs walks it; nothing is executed).
func Tree() *cobra.Command {
	return NewRoot(Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
}
