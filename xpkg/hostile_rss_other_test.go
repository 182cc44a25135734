//go:build !linux

package xpkg_test

// peakRSS returns false: the peak resident set is read on Linux only.
func peakRSS() (uint64, bool) { return 0, false }
