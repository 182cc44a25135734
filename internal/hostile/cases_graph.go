package hostile

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// graphDepsCases are the dependency graph cases of the graph's footprint
// and cost beyond one rule's worst case (see DepsCases).
func graphDepsCases() []DepsCase {
	return []DepsCase{
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
