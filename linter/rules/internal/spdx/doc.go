// Package spdx checks SPDX license identifiers and license expressions
// against the SPDX license list, embedded as generated Go data (see
// ListVersion); nothing is fetched at run time.
package spdx

//go:generate go run ./gen -in gen/spdx-license-ids -out licenses_gen.go
