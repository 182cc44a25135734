package ocitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// Reference names (org.opencontainers.image.ref.name) of the top-level index
// TestStore asks a store to serve: indexRef names the image's index,
// manifestRef its linux/amd64 manifest.
const (
	indexRef    = "ocitest:multi"
	manifestRef = "ocitest:amd64"
)

// storeIndex returns the top-level index TestStore gives newStore for the
// blobs of Image: two entries, in this order, the image's index annotated
// org.opencontainers.image.ref.name = indexRef, and its linux/amd64 manifest
// (with its platform) annotated manifestRef and one more annotation a store
// must keep. Each call returns fresh values.
func storeIndex() ocispec.Index {
	blobs, index := Image()
	var amd64 ocispec.Descriptor
	for _, b := range blobs {
		if b.Descriptor.Digest != index.Digest {
			continue
		}
		var idx ocispec.Index
		_ = json.Unmarshal(b.Data, &idx) // written by Image: cannot fail
		amd64 = idx.Manifests[0]
	}
	index.Annotations = map[string]string{ocispec.AnnotationRefName: indexRef}
	amd64.Annotations = map[string]string{ocispec.AnnotationRefName: manifestRef, "org.example.ocitest": "kept"}
	return ocispec.Index{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageIndex,
		Manifests: []ocispec.Descriptor{index, amd64},
	}
}

// TestStore checks a Store as TestFetcher checks a Fetcher, and its Index.
// newStore must return a Store serving exactly blobs (those of Image) with
// index as its top-level index: two entries, the image's index named
// "ocitest:multi" and its linux/amd64 manifest named "ocitest:amd64"
// (annotation org.opencontainers.image.ref.name) with one more annotation; it is called once for the Index
// checks and once more by TestFetcher's. TestStore checks that:
//   - the Fetch checks of TestFetcher pass;
//   - Index returns index's entries, in order, with every descriptor field
//     (media type, digest, size, platform, annotations) kept;
//   - Index returns fresh values: changing one result changes no later one;
//   - Index is safe from many goroutines at once, each getting the same;
//   - oci.Resolve follows the index by reference (oci.WithReference):
//     "ocitest:multi" to either platform, "ocitest:amd64" to linux/amd64,
//     and an absent name to an error matching oci.ErrNotFound.
func TestStore(t *testing.T, newStore func(t *testing.T, blobs []Blob, index ocispec.Index) oci.Store) {
	t.Helper()
	blobs, _ := Image()
	s := newStore(t, blobs, storeIndex())
	if s == nil {
		t.Fatal("ocitest: newStore returned nil")
	}
	ctx := context.Background()
	for _, c := range storeChecks {
		t.Run(c.name, func(t *testing.T) {
			if err := c.check(ctx, s); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("Fetcher", func(t *testing.T) {
		TestFetcher(t, func(t *testing.T, blobs []Blob) oci.Fetcher { return newStore(t, blobs, storeIndex()) })
	})
}

// storeChecks are TestStore's checks of a store holding Image's blobs and
// storeIndex's index; each returns what it found wrong.
var storeChecks = []struct {
	name  string
	check func(ctx context.Context, s oci.Store) error
}{
	{"Index", checkIndex},
	{"IndexFresh", checkIndexFresh},
	{"IndexConcurrent", checkIndexConcurrent},
	{"Resolve", checkResolve},
}

// sameManifests returns an error when got's entries differ from want's, as
// their JSON encodings do.
func sameManifests(what string, got ocispec.Index, want []ocispec.Descriptor) error {
	g, err := json.Marshal(got.Manifests)
	if err != nil {
		return fmt.Errorf("ocitest: %s: encoding the entries: %w", what, err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		return fmt.Errorf("ocitest: %s: encoding the entries: %w", what, err)
	}
	if string(g) != string(w) {
		return fmt.Errorf("ocitest: %s: entries\n\t%s\nwant\n\t%s", what, g, w)
	}
	return nil
}

func checkIndex(ctx context.Context, s oci.Store) error {
	got, err := s.Index(ctx)
	if err != nil {
		return fmt.Errorf("ocitest: Index: %w", err)
	}
	if got.SchemaVersion != 2 {
		return fmt.Errorf("ocitest: Index: schemaVersion %d, want 2", got.SchemaVersion)
	}
	return sameManifests("Index", got, storeIndex().Manifests)
}

func checkIndexFresh(ctx context.Context, s oci.Store) error {
	first, err := s.Index(ctx)
	if err != nil {
		return fmt.Errorf("ocitest: Index: %w", err)
	}
	for i := range first.Manifests {
		d := &first.Manifests[i]
		d.Size++
		if d.Annotations != nil {
			d.Annotations[ocispec.AnnotationRefName] = "changed"
		}
		if d.Platform != nil {
			d.Platform.Architecture = "changed"
		}
	}
	first.Manifests = append(first.Manifests[:0], ocispec.Descriptor{})
	again, err := s.Index(ctx)
	if err != nil {
		return fmt.Errorf("ocitest: Index, called again: %w", err)
	}
	return sameManifests("Index, after its previous result was changed", again, storeIndex().Manifests)
}

func checkIndexConcurrent(ctx context.Context, s oci.Store) error {
	const workers = 8
	want := storeIndex().Manifests
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			got, err := s.Index(ctx)
			if err != nil {
				errs[w] = fmt.Errorf("ocitest: concurrent Index: %w", err)
				return
			}
			errs[w] = sameManifests("concurrent Index", got, want)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func checkResolve(ctx context.Context, s oci.Store) error {
	var errs []error
	for _, c := range []struct{ ref, platform string }{
		{indexRef, "linux/amd64"},
		{indexRef, "linux/arm64"},
		{manifestRef, "linux/amd64"},
	} {
		if err := resolveFile(ctx, s, c.ref, c.platform); err != nil {
			errs = append(errs, err)
		}
	}
	if _, err := oci.Resolve(ctx, s, oci.WithReference("ocitest:absent")); !errors.Is(err, oci.ErrNotFound) {
		errs = append(errs, fmt.Errorf("ocitest: Resolve of a reference the index lacks: error %v does not match oci.ErrNotFound", err))
	}
	return errors.Join(errs...)
}

// resolveFile resolves ref for platform and checks the image's package.yaml.
func resolveFile(ctx context.Context, s oci.Store, ref, platform string) error {
	pl, err := oci.ParsePlatform(platform)
	if err != nil {
		return err
	}
	img, err := oci.Resolve(ctx, s, oci.WithReference(ref), oci.WithPlatform(pl))
	if err != nil {
		return fmt.Errorf("ocitest: Resolve(%s, %s): %w", ref, platform, err)
	}
	if img.Platform == nil || oci.PlatformString(*img.Platform) != platform {
		return fmt.Errorf("ocitest: Resolve(%s, %s): resolved platform %v", ref, platform, img.Platform)
	}
	f, err := oci.ReadFile(ctx, s, img.Manifest.Layers, "package.yaml")
	if err != nil {
		return fmt.Errorf("ocitest: Resolve(%s, %s): ReadFile: %w", ref, platform, err)
	}
	got, err := io.ReadAll(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("ocitest: Resolve(%s, %s): ReadFile: %w", ref, platform, err)
	}
	if string(got) != PackageYAML+platform {
		return fmt.Errorf("ocitest: Resolve(%s, %s): package.yaml = %q, want %q", ref, platform, got, PackageYAML+platform)
	}
	return nil
}
