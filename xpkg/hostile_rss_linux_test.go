package xpkg_test

import (
	"bytes"
	"os"
	"strconv"
)

// peakRSS returns this process's peak resident set, in bytes: VmHWM of
// /proc/self/status. (The rusage of an exited child is no substitute: Go
// starts children with vfork, and Linux counts the parent's peak in the
// child's ru_maxrss.)
func peakRSS() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
