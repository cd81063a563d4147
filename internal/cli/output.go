package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/internal/atomicwrite"
	"github.com/winkube/winkube/internal/manifest"
)

// output is how every command prints, the same everywhere:
//
//	-o, --output FORMAT           the format on stdout, as in kubectl
//	--output-file FORMAT=PATH     also write FORMAT to PATH (repeatable)
//	-q, --quiet                   no status on stderr
//	--color auto|always|never     colour on stdout; auto means a terminal
//	                              and no NO_COLOR in the environment
//
// Files are written atomically (a synced temporary in the same folder,
// renamed over the file, its mode kept) and never coloured unless
// --color=always. A file that cannot be written is an error naming it.
type output struct {
	formats []string // what the command renders; the first is the default
	format  string
	files   []string
	quiet   bool
	color   string

	targets []fileTarget
	// streaming commands (webhook serve) print no result, only a log on
	// stderr: they have no --output-file, and -o is the log's format.
	streaming bool
}

type fileTarget struct{ format, path string }

func (o *output) addFlags(f *pflag.FlagSet, what string, formats ...string) {
	o.formats = formats
	stream := "stdout"
	if o.streaming {
		stream = "stderr"
	}
	f.StringVarP(&o.format, "output", "o", formats[0], fmt.Sprintf("%s format on %s: %s", what, stream, strings.Join(formats, ", ")))
	if !o.streaming {
		f.StringArrayVar(&o.files, "output-file", nil, "also write FORMAT to the file PATH, given as FORMAT=PATH (repeatable)")
	}
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print no status or warnings on stderr")
	f.StringVar(&o.color, "color", "auto", "colour output: auto, always or never (auto: on a terminal unless NO_COLOR is set)")
}

func (o *output) validate() error {
	if !slices.Contains(o.formats, o.format) {
		return usagef("--output %q: want %s", o.format, orList(o.formats))
	}
	if err := checkColor(o.color); err != nil {
		return err
	}
	o.targets = o.targets[:0]
	for _, spec := range o.files {
		format, path, ok := strings.Cut(spec, "=")
		switch {
		case !ok || path == "":
			return usagef("--output-file %q: want FORMAT=PATH, e.g. %s=out.%s", spec, o.formats[0], o.formats[0])
		case !slices.Contains(o.formats, format):
			return usagef("--output-file %q: format %q: want %s", spec, format, orList(o.formats))
		}
		o.targets = append(o.targets, fileTarget{format, path})
	}
	return nil
}

// colour reports whether stdout gets colour.
func (o *output) colour(s Streams) bool {
	return o.color == "always" || (o.color == "auto" && s.OutIsTerminal && os.Getenv("NO_COLOR") == "")
}

// status prints a line on stderr unless -q.
func (o *output) status(s Streams, format string, args ...any) {
	if !o.quiet {
		fmt.Fprintf(s.Err, format+"\n", args...)
	}
}

// render writes the chosen format to stdout and every --output-file; it
// returns the first error, naming stdout or the file.
func (o *output) render(s Streams, write func(w io.Writer, format string, colour bool) error) error {
	if err := write(s.Out, o.format, o.colour(s)); err != nil {
		return fmt.Errorf("writing %s output to stdout: %w", o.format, err)
	}
	for _, t := range o.targets {
		var b bytes.Buffer
		if err := write(&b, t.format, o.color == "always"); err != nil {
			return fmt.Errorf("writing %s output to %s: %w", t.format, t.path, err)
		}
		if err := atomicwrite.File(t.path, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// unread names on stderr every input that could not be read and makes the
// exit status 2: a run that did not see all its input is not clean,
// whatever load-error's severity.
func unread(s Streams, errs []*manifest.Error) error {
	for _, e := range errs {
		fmt.Fprintf(s.Err, "error: %v\n", e)
	}
	if len(errs) > 0 {
		return exitError{ExitError}
	}
	return nil
}

func orList(list []string) string {
	if len(list) == 1 {
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}

func checkColor(c string) error {
	switch c {
	case "auto", "always", "never":
		return nil
	}
	return usagef("--color %q: want auto, always or never", c)
}
