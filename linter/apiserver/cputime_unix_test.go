//go:build unix

package apiserver

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user plus system) the process has used,
// for benchmarks to report beside the wall time: on a shared machine the
// wall time measures the load as much as the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
