//go:build unix

package plan

import "syscall"

// cpuSeconds is the process's user and system CPU time so far: on a
// shared machine the benchmark reports it beside the wall time, which
// other processes' load inflates.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
