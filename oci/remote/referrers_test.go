package remote_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
)

// referrerWorstCases are the hostile referrers listings: pages without
// end, pages full of descriptors, and a page over the manifest bound.
func referrerWorstCases() []registryWorstCase {
	subject := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("subject"), Size: 2}
	listing := func(n int) string {
		d := fmt.Sprintf(`{"mediaType":%q,"digest":%q,"size":100,"artifactType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`, ocispec.MediaTypeImageManifest, digest.FromString("x"))
		items := strings.TrimSuffix(strings.Repeat(d+",", n), ",")
		return `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` + items + `]}`
	}
	serve := func(page string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/referrers/") {
				w.Header().Set("Link", fmt.Sprintf(`<%s?n=%d>; rel="next"`, r.URL.Path, len(r.URL.RawQuery)+1))
				w.Header().Set("Content-Type", ocispec.MediaTypeImageIndex)
				fmt.Fprint(w, page)
				return
			}
			w.WriteHeader(http.StatusOK)
		}
	}
	run := func(t *testing.T, page, lim string, maxRequests int64) {
		host, n := hostileRegistry(t, serve(page))
		repo, err := anonClient(t).Repository(host + "/test/pkg")
		if err != nil {
			t.Fatal(err)
		}
		_, err = repo.Referrers(context.Background(), subject, "")
		var le *limit.Error
		if !errors.As(err, &le) || string(le.Limit) != lim {
			t.Fatalf("err = %v, want %s", err, lim)
		}
		checkSafe(t, err.Error())
		if got := n.Load(); got > maxRequests {
			t.Errorf("%d requests, want at most %d", got, maxRequests)
		}
	}
	return []registryWorstCase{
		{"registry-cost-endless-referrer-pages", "pagination", func(t *testing.T) {
			run(t, listing(0), "MaxReferrerPages", 103)
		}},
		{"registry-cost-referrer-flood", "pagination", func(t *testing.T) {
			run(t, listing(400), "MaxReferrers", 6)
		}},
		{"registry-cost-referrer-page-over-bound", "bodies", func(t *testing.T) {
			// One page of 6 MB: oras-go stops reading at 4 MiB.
			run(t, listing(30_000), "MaxManifestBytes", 3)
		}},
	}
}

// TestReferrersAbsent: a registry without the referrers API and without
// a referrers tag has no referrers; that is no error.
func TestReferrersAbsent(t *testing.T) {
	t.Parallel()
	host, _ := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			w.WriteHeader(http.StatusOK)
			return
		}
		http.NotFound(w, r)
	})
	repo, _ := anonClient(t).Repository(host + "/test/pkg")
	refs, err := repo.Referrers(context.Background(), ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString("s"), Size: 1}, "")
	if err != nil || len(refs) != 0 {
		t.Fatalf("referrers %v, err %v; want none", refs, err)
	}
}
