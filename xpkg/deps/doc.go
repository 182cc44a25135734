// Package deps resolves a Crossplane package's dependency graph, the
// subject of the graph rules (linter/graphrules) that say whether it will
// install.
//
// A Resolver reads packages from a Source: NewRegistrySource (OCI registries
// through an oci/remote Client, with its cache and offline mode),
// MemorySource (in memory; see xpkg/xpkgtest's Graph for whole graphs in
// unit tests), NewDirSource (a directory laid out like references, for
// offline CI), NewCacheSource (Crossplane's package cache directory), or
// several combined with
// Sources. Resolve starts from a root package's Summarize summary and
// returns a Graph; linter/graphrules's Lint reports its problems as
// linter.Diagnostic values positioned at the dependsOn entry, or the
// Composition field, of the package that causes them; Graph.Lock writes
// it down. The graph keeps what the rules read: each Package's
// Compositions, Definitions and Suppressions, the graph's Footprint and
// Activation.
//
//	root, _ := deps.Summarize(ctx, pkg.Package, "")
//	g, err := deps.NewResolver(deps.NewDirSource("vendor/xpkg")).Resolve(ctx, root)
//	res, err := graphrules.Lint(ctx, g, linter.WithCrossplaneVersion("v2.1.0")) // res.Diagnostics
//	os.Stdout.Write(g.Lock().JSON())
//
// RewriteSource applies Crossplane's ImageConfig rewrites
// (xpkg/imageconfig) to every package a Source reads, so that a graph
// declared against a public registry is read from the mirror a cluster
// pulls from. The graph keeps the declared names; each lock entry adds
// "resolved" (the reference read) and "imageConfig" (the ImageConfig that
// rewrote it), both omitted when nothing was rewritten, so locks written
// without ImageConfigs are unchanged.
//
// # Crossplane's semantics, as followed
//
// From Crossplane v2.1.0's package manager:
//
//   - A version constraint selects the highest tag that satisfies it
//     (internal/controller/pkg/resolver/reconciler.go,
//     findDependencyVersionToInstall). Tags that are not semantic versions
//     are skipped, and so are incomplete ones: "v1" parses as 1.0.0 but is
//     skipped, since such a tag may not be that release. A leading "v" is
//     allowed in tags and constraints. Constraints are read as Crossplane's
//     library, Masterminds/semver v1.5.0, reads them (not as the v3 module
//     does): comparisons are joined with ',' (">=v1.0.0 <v2.0.0", joined by a
//     space, is not a constraint Crossplane reads), alternatives with '||',
//     and each comparison whose bound names no pre-release refuses a
//     pre-release version, so ">=v1.14.1-0" admits v2.0.0-rc.1 while
//     ">=v1.2.0-0, <v2.0.0" admits none.
//   - A version that is a digest (sha256:<64 hex>, what
//     go-containerregistry's NewHash accepts) pins exactly, without looking
//     at tags (same function).
//   - The deprecated provider:, configuration: and function: keys name the
//     package like package: does, with the kind they imply
//     (internal/controller/pkg/revision/dependency.go, and the resolver's
//     NewPackage).
//   - A package installed as a dependency is named after its repository made
//     a DNS label (resolver NewPackage, internal/xpkg/name.go ToDNSLabel),
//     which is the name a Composition's functionRef must use (XP606).
//   - A cycle stops installation (resolver Reconcile: dag.Sort).
//   - Each package's spec.crossplane.version is checked against the running
//     Crossplane (internal/controller/pkg/revision/reconciler.go,
//     "incompatible Crossplane version"; internal/version InConstraints).
//   - A digest and a version constraint on one package, or two different
//     digests, cannot both hold (resolver findDigestToUpdate).
//
// # Where xpkgkit goes further
//
// Crossplane resolves one dependency at a time, in the cluster, and keeps
// the first version it installed. Resolve instead takes every constraint
// of the graph on a package at once and selects one version for the whole
// graph: the highest tag that satisfies them all. When none does, the
// graph has a conflict (XP602) naming every constraint with its file, line
// and dependant, and resolution goes on with the version the first
// constraint alone selects, so the rest of the graph is still checked.
// Because a selection decides which dependencies a package brings, the
// resolver walks the graph again when the complete set of constraints
// changes a selection (at most 8 times, and no further once a selection
// repeats); a walk that does not settle is a finding of its own (XP608),
// naming the packages that flip. It also reports cycles with their
// path (XP603, one per set of packages that depend on each other), entries whose package is of another kind than declared
// (XP604), packages of the graph whose Crossplane constraint excludes the
// target version (XP605), pipeline steps naming no Function of the graph
// (XP606) and composed types no CRD, XRD or MRD of the graph serves
// (XP607), validating the root's composed bases against the schema of the CRD
// that serves them (package linter/schema). Those rules are
// linter/graphrules's.
//
// # Cost
//
// Resolve lists tags and fetches packages in parallel (WithConcurrency),
// fetches each package version at most once (a package is read at a second
// version only when a constraint met later changes its selection), reads
// images through their manifest, config and base layer only, and keeps
// only summaries: a package's parsed objects
// are released once its summary is taken, so memory grows with the largest
// package plus the summaries, not with the sum of the packages. Limits
// bounds the packages, the dependsOn entries, the tags considered and the
// comparisons of tags against constraints (each distinct constraint on a
// package is parsed and checked against its sorted tags once per Resolve
// call), with a *limit.Error; every loop over the graph is linear in its
// packages and entries, and checks the context. Cycles are found as
// strongly connected components (Tarjan), linear in the graph.
package deps
