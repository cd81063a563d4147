//go:build !unix

package plan

// cpuSeconds is not measured here.
func cpuSeconds() float64 { return 0 }
