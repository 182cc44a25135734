//go:build race

package main_test

// raceEnabled reports that the race detector is on: the hostile tests then
// skip the heavy cases, which .ci/run runs without -race.
const raceEnabled = true
