//go:build race

package hostile

// raceEnabled reports that the race detector is on: heavy cases are then
// not written (see TestHeavyCases).
const raceEnabled = true
