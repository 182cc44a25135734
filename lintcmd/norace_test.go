//go:build !race

package lintcmd

const raceEnabled = false
