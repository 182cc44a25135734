//go:build race

package remote_test

// raceEnabled reports that the race detector is on: the largest corpus
// package is left to the run without it (.ci/run's corpus step).
const raceEnabled = true
