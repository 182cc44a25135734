//go:build race

package lintcmd

const raceEnabled = true
