//go:build !race

package oci_test

const raceEnabled = false
