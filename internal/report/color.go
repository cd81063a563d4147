package report

// Colour is an ANSI SGR sequence; the report layer's text writers (this
// package's and simreport's) colour with these and nothing else.
type Colour string

const (
	Red    Colour = "\x1b[31m"
	Yellow Colour = "\x1b[33m"
	Green  Colour = "\x1b[32m"
	Cyan   Colour = "\x1b[36m"
	Dim    Colour = "\x1b[2m"
	Bold   Colour = "\x1b[1m"

	reset = "\x1b[0m"
)

// Paint returns s in colour c when on, else s unchanged.
func Paint(on bool, c Colour, s string) string {
	if !on {
		return s
	}
	return string(c) + s + reset
}
