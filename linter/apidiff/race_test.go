//go:build race

package apidiff_test

const raceEnabled = true
