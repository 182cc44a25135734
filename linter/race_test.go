//go:build race

package linter_test

const raceEnabled = true
