//go:build race

package parser

// raceEnabled reports that the race detector is on; the slowest corpus test
// is left to the benchmarks then.
const raceEnabled = true
