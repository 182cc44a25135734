//go:build race

package oci_test

// raceEnabled: the race detector slows decompression about tenfold, so the
// heaviest corpus reads are left to the runs without it.
const raceEnabled = true
