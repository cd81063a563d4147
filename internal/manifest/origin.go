package manifest

// Origin maps a position in a rendered input (a Helm chart's templates
// after rendering, a kustomization after building) back to the file it
// came from: given the rendered line and the finding's field path, it
// returns the source file, line and column (-1 when the rendered column
// holds there too), and ok false when it cannot tell. The rendered position stays the finding's related location.
type Origin func(line int, fieldPath string) (file string, srcLine, srcCol int, ok bool)

// RenderedInput is an input of rendered text, named name, whose positions
// origin maps back to the source. fix refuses such inputs: its edits
// would land in text no file holds.
func RenderedInput(name string, data []byte, origin Origin) Input {
	in := BytesInput(name, data)
	in.Origin = origin
	return in
}
