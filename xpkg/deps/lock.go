package deps

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/meta"
)

// Lock is the resolved graph written down: every package with the version
// and digest resolved, and the entries that asked for it. The same inputs
// give the same Lock, byte for byte once marshalled.
type Lock struct {
	// Root is the root package's name (its reference, or its meta name).
	Root string `json:"root"`
	// Packages are the dependencies, sorted by name.
	Packages []LockedPackage `json:"packages"`
}

// LockedPackage is one package of a Lock.
type LockedPackage struct {
	// Package is the registry/repository.
	Package string `json:"package"`
	// Kind is the package's kind; empty when it could not be fetched.
	Kind meta.Kind `json:"kind,omitempty"`
	// Version is the tag resolved, or the digest it is pinned to; empty
	// when nothing resolved (or for an unversioned copy).
	Version string `json:"version,omitempty"`
	// Digest is the image digest, when the source knows it.
	Digest string `json:"digest,omitempty"`
	// Resolved is the reference the package was read from when an
	// ImageConfig rewrote the declared one (Package with Version): the
	// mirror's name:tag or name@digest. Absent when nothing rewrote it.
	Resolved string `json:"resolved,omitempty"`
	// ImageConfig names the ImageConfig that rewrote the reference.
	ImageConfig string `json:"imageConfig,omitempty"`
	// Verified is the digest whose signature a verification accepted
	// (MarkVerified); absent when none was verified.
	Verified string `json:"verified,omitempty"`
	// VerifiedBy names what accepted it ("ImageConfig/authority").
	VerifiedBy string `json:"verifiedBy,omitempty"`
	// RequiredBy lists the entries that ask for the package, sorted.
	RequiredBy []Requirement `json:"requiredBy"`
	// Problem is set when the package did not resolve cleanly: a conflict,
	// or why it could not be fetched.
	Problem string `json:"problem,omitempty"`
}

// Requirement is one dependsOn entry asking for a package (an element of
// LockedPackage.RequiredBy).
type Requirement struct {
	// By is the dependant, as Node.Label gives it.
	By string `json:"by"`
	// Constraint is the entry's version field.
	Constraint string `json:"version"`
	// Position is the entry's file:line:column.
	Position string `json:"position"`
}

// Lock returns the graph's lock.
func (g *Graph) Lock() *Lock {
	l := &Lock{Root: g.Root.Label(), Packages: []LockedPackage{}}
	for _, n := range g.Nodes {
		if n == g.Root {
			continue
		}
		lp := LockedPackage{Package: n.Name, Version: n.Version, Problem: n.Conflict, RequiredBy: []Requirement{}}
		if n.Package != nil {
			lp.Kind, lp.Digest = n.Package.Kind, n.Package.Digest
			if n.Package.ImageConfig != "" {
				lp.Resolved, lp.ImageConfig = n.Package.Resolved, n.Package.ImageConfig
			}
		} else if n.Err != nil && lp.Problem == "" {
			lp.Problem = shorten(n.Err.Error())
		}
		for _, e := range n.In {
			lp.RequiredBy = append(lp.RequiredBy, Requirement{By: e.From.Label(), Constraint: e.Dep.Constraint, Position: e.Dep.Pos.String()})
		}
		slices.SortFunc(lp.RequiredBy, func(a, b Requirement) int {
			return cmp.Or(strings.Compare(a.By, b.By), strings.Compare(a.Position, b.Position), strings.Compare(a.Constraint, b.Constraint))
		})
		l.Packages = append(l.Packages, lp)
	}
	return l
}

// MarkVerified records that the signature of package pkg at digest d
// was verified, by by ("ImageConfig/authority"). It reports false, and
// records nothing, when the lock has no package pkg, or when pkg was read
// at another digest than d: a lock never pairs a verification with bytes
// it was not made for.
func (l *Lock) MarkVerified(pkg, d, by string) bool {
	for i := range l.Packages {
		lp := &l.Packages[i]
		if lp.Package == pkg && lp.Digest != "" && lp.Digest == d {
			lp.Verified, lp.VerifiedBy = d, by
			return true
		}
	}
	return false
}

// JSON returns the lock as indented JSON, ending with a newline, with
// '<', '>' and '&' written as themselves (constraints hold them).
func (l *Lock) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(l) // only strings: cannot fail
	return b.Bytes()
}
