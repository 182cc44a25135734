//go:build !race

package xpkg_test

// raceEnabled is true when the tests run with the race detector, which
// makes the largest corpus package too slow to open in a test.
const raceEnabled = false
