//go:build race

package main

// raceEnabled reports that the race detector is on: TestHostileServer then
// skips (.ci/run runs it without -race, in its hostile step).
const raceEnabled = true
