// Package deepcopytest checks hand-written deep copies: that a fixture sets
// every field (so a new field cannot go uncopied unnoticed) and that a copy
// shares no memory with its original.
package deepcopytest
