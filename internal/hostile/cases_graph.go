package hostile

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// graphDepsCases are the dependency graph cases of the graph's footprint
// and cost beyond one rule's worst case (see DepsCases).
func graphDepsCases() []DepsCase {
	return []DepsCase{
		activationCase(),
		depsCase("deps-cost-composed-distinct",
			"Issue 30's deps regression: 10 Configurations, each with 4 Compositions of 10,000 resources composing "+
				"distinct types nothing serves (400,000 composed types in all, 28 MB of YAML): 400,000 XP607 findings, "+
				"capped. A dependency's summary parsed each Composition a second time with the full YAML parser to "+
				"locate every composed entry (8.5 s of CPU through xpkg-lint on a loaded 2-core machine, 3.7 s "+
				"after); it now reads the content the parse read and places a dependency's findings at "+
				"their Composition with the field path.",
			[]string{"XP607"}, rule(ClassLintError, "XP607"), 30_000_000, true,
			rootOf(10, func(i int) depEntry { return depEntry{"Configuration", pkgName("distinct", i), ">=v1.0.0"} }),
			func(ctx context.Context, dd string) error {
				return compositionPackages(ctx, dd, "distinct", 10, 4, 10_000, func(w *bufio.Writer, c, j int) {
					fmt.Fprintf(w, "  - name: r%d\n    base:\n      apiVersion: g%d.example.org/v1\n      kind: K%d\n", j, c, j)
				}, false)
			}),
	}
}

// ServerCase is a worst case for one endpoint of a server program of the
// module (examples/verify-upload): many requests at once, each reading a
// package from a registry that Registry serves, which holds every answer
// open until release is closed, so that every request the server admits
// stays in flight. The measurement (the server's peak RSS and CPU, under
// the hostile bounds) is the server's test's, in CI's hostile step.
type ServerCase struct {
	// Name is unique and starts with "server-".
	Name string
	// Description says what the requests attack and what a bounded
	// server does with them.
	Description string
	// Endpoint is the request, "METHOD PATH", as the server lists it.
	Endpoint string
	// Requests is how many requests are sent at once.
	Requests int
	// Registry returns the registry the requests' packages are read from.
	Registry func(release <-chan struct{}) http.Handler
	// Ref is the package the i-th request names, in the registry at host.
	Ref func(host string, i int) string
}

// ServerCases returns the worst cases of the servers' endpoints.
func ServerCases() []ServerCase {
	ref := func(host string, i int) string { return fmt.Sprintf("%s/acme/held-%d:v1", host, i) }
	return []ServerCase{
		{
			Name: "server-verify-held",
			Description: "Issue 30 class 8: 150 POST /verify requests at once, for packages of a registry that " +
				"answers nothing until released (a slow registry, or uploads that stall on purpose). Every " +
				"request held a verification, its registry client and its verifier: 789-867 MiB. A bounded " +
				"server runs its admitted verifications, keeps a bounded queue waiting, and answers the rest 503.",
			Endpoint: "POST /verify",
			Requests: 150,
			Registry: func(release <-chan struct{}) http.Handler { return heldRegistry(release, 0) },
			Ref:      ref,
		},
		{
			Name: "server-verify-trickle",
			Description: "150 POST /verify requests at once, for packages whose manifests the registry " +
				"announces at 4 MiB (the distribution spec's floor, and the readers' cap) and sends but its " +
				"last byte until released: each admitted verification holds its largest read. A bounded server " +
				"charges each verification the bytes its limits let it read, within its bytes in flight.",
			Endpoint: "POST /verify",
			Requests: 150,
			Registry: func(release <-chan struct{}) http.Handler { return heldRegistry(release, 4<<20) },
			Ref:      ref,
		},
	}
}

// heldRegistry answers the API version check (GET /v2/) and holds every
// other request until release is closed, then answers 404. With
// trickle > 0, a manifest request is answered 200 with a Content-Length
// of trickle bytes, all sent at once but the last, which never comes.
func heldRegistry(release <-chan struct{}, trickle int64) http.Handler {
	var digest string
	if trickle > 0 {
		digest = fmt.Sprintf("sha256:%x", sha256.Sum256(bytes.Repeat([]byte{' '}, int(trickle))))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" || r.URL.Path == "/v2" {
			w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
			return
		}
		if trickle > 0 && strings.Contains(r.URL.Path, "/manifests/") {
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Header().Set("Content-Length", strconv.FormatInt(trickle, 10))
			w.Header().Set("Docker-Content-Digest", digest)
			w.WriteHeader(http.StatusOK)
			if r.Method == http.MethodHead {
				return
			}
			// All but the last byte at once: the reader holds them.
			if _, err := w.Write(bytes.Repeat([]byte{' '}, int(trickle-1))); err != nil {
				return
			}
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		http.NotFound(w, r)
	})
}

// Sizes of deps-cost-activation: 100,000 MRDs against 10,000 activation
// patterns.
const (
	activationProviders  = 50
	activationMRDsEach   = 2_000
	activationPatterns   = 10_000
	activationComposed   = 1_000
	activationGlobsOther = 10
)

// activationCase is issue 36's worst case for the footprint and
// activation rules.
func activationCase() DepsCase {
	return depsCase("deps-cost-activation",
		"Issue 36: 50 Providers of 2,000 MRDs each (100,000 MRDs: 25 Providers' activated by the MRAP, 12's "+
			"active at install, 13's inactive) and a root whose MRAP has 10,000 entries: 9,990 wildcard suffixes "+
			"and prefixes (25 matching one provider's group each, the others nothing) and 10 general globs; its "+
			"Composition composes 1,000 kinds across the 50 groups, about 260 of them never activated. Matching every MRD against every entry is a billion filepath.Match calls; the index matches "+
			"exact names, suffixes and prefixes in time linear in the name, and general globs within a budget. "+
			"XP609 counts the 100,000 MRDs, XP610 the 24,000 served over max-crds, XP611 the kinds left inactive and XP612 the entries "+
			"matching nothing, both capped.",
		[]string{"XP609", "XP610", "XP611", "XP612"}, rule(ClassLintError, "XP611"), 25_000_000, true,
		func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			if err := writeMeta(bw, "Configuration", "root", "", func(yield func(depEntry) bool) {
				for i := range activationProviders {
					if !yield(depEntry{"Provider", pkgName("mrds", i), ">=v1.0.0"}) {
						return
					}
				}
			}); err != nil {
				return err
			}
			bw.WriteString("---\napiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceActivationPolicy\nmetadata:\n  name: platform\nspec:\n  activate:\n")
			for i := range activationPatterns - activationGlobsOther {
				switch {
				case i < activationProviders/2:
					fmt.Fprintf(bw, "  - \"*.g%d.example.org\"\n", i) // activates provider i's MRDs
				case i%2 == 0:
					fmt.Fprintf(bw, "  - \"*.none%d.example.org\"\n", i)
				default:
					fmt.Fprintf(bw, "  - \"nothing%d.*\"\n", i)
				}
			}
			for i := range activationGlobsOther {
				fmt.Fprintf(bw, "  - \"k[0-9]%d?.g%d.example.org\"\n", i, activationProviders-1)
			}
			// The composed kinds span every group: those of the last 12
			// are never activated (every kind is served by an MRD, so
			// XP607 is content).
			fmt.Fprintf(bw, "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\nspec:\n"+
				"  compositeTypeRef:\n    apiVersion: x.example.org/v1\n    kind: XThing\n  resources:\n")
			for j := range activationComposed {
				p := j % activationProviders
				fmt.Fprintf(bw, "  - name: r%d\n    base:\n      apiVersion: g%d.example.org/v1\n      kind: K%d\n", j, p, j%activationMRDsEach)
			}
			return bw.Flush()
		},
		func(ctx context.Context, dd string) error {
			for i := range activationProviders {
				if err := ctx.Err(); err != nil {
					return err
				}
				name := fmt.Sprintf("mrds-%d", i)
				if err := writeDepFile(depPath(dd, pkgName("mrds", i), "v1.0.0"), func(w io.Writer) error {
					bw := bufio.NewWriter(w)
					if err := writeMeta(bw, "Provider", name, "", nil); err != nil {
						return err
					}
					state := ""
					if i >= activationProviders/2 && i < activationProviders*3/4 {
						state = "  state: Active\n"
					}
					for k := range activationMRDsEach {
						fmt.Fprintf(bw, "---\napiVersion: apiextensions.crossplane.io/v1alpha1\nkind: ManagedResourceDefinition\nmetadata:\n"+
							"  name: k%ds.g%d.example.org\nspec:\n  group: g%d.example.org\n  names:\n    kind: K%d\n    plural: k%ds\n"+
							"  scope: Cluster\n%s  versions:\n  - name: v1\n    served: true\n    storage: true\n", k, i, i, k, k, state)
					}
					return bw.Flush()
				}); err != nil {
					return err
				}
			}
			return nil
		})
}
