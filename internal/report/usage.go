package report

// UsageLevel is the class of a bar that shows p percent of a resource in
// use: "ok" below 70, "warn" below 90, "full" from there. The HTML pages
// colour each class with the same CSS variable.
func UsageLevel(p float64) string {
	switch {
	case p >= 90:
		return "full"
	case p >= 70:
		return "warn"
	}
	return "ok"
}
