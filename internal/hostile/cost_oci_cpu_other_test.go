//go:build !unix

package hostile_test

import "time"

// cpuTime is zero where the process's CPU time is not read.
func cpuTime() time.Duration { return 0 }
