package oci_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
)

// The fuzz targets hunt for amplification, not only for panics: each input
// runs under a watchdog that fails it when it runs longer than fuzzMaxTime
// or allocates more than fuzzMaxAlloc plus fuzzAllocPerByte times its size
// (runtime.MemStats.TotalAlloc before and after; fuzz workers are separate
// processes, each running one input at a time, so the figure is the
// input's own). The bounds are far above what fuzzLimits let an input
// cost, so that only amplification trips them.
const (
	fuzzMaxTime      = 10 * time.Second
	fuzzMaxAlloc     = 96 << 20
	fuzzAllocPerByte = 64
)

// watchdog runs body for an input of n bytes and fails t when it
// allocates too much. An input that runs longer than fuzzMaxTime crashes
// the process from a timer (the body cannot be interrupted): the fuzzing
// engine records a crashing input like any other, with the message.
func watchdog(t *testing.T, n int, body func(t *testing.T)) {
	t.Helper()
	timer := time.AfterFunc(fuzzMaxTime, func() {
		panic(fmt.Sprintf("watchdog: an input of %d bytes ran longer than %v", n, fuzzMaxTime))
	})
	defer timer.Stop()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	body(t)
	runtime.ReadMemStats(&after)
	if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(fuzzMaxAlloc+fuzzAllocPerByte*n); alloc > limit {
		t.Fatalf("input of %d bytes allocated %d bytes, over %d", n, alloc, limit)
	}
}

// errorClasses are the classes every error of this package wraps.
var errorClasses = []error{
	oci.ErrNotFound, oci.ErrDigestMismatch, oci.ErrSizeMismatch, limit.ErrExceeded,
	oci.ErrUnsupportedMediaType, oci.ErrNoMatchingPlatform, oci.ErrEmptyIndex,
	oci.ErrInvalidDescriptor, oci.ErrMalformed, oci.ErrUnknownFormat, oci.ErrUnsafePath,
	oci.ErrInvalidWhiteout, oci.ErrDuplicateEntry, oci.ErrNotRegularFile, oci.ErrInvalidArgument,
}

// checkTyped fails t when err is not nil and not an *oci.Error of a known
// class.
func checkTyped(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var oe *oci.Error
	if !errors.As(err, &oe) {
		t.Fatalf("%s: error %v is not an *oci.Error", what, err)
	}
	for _, c := range errorClasses {
		if errors.Is(err, c) {
			return
		}
	}
	t.Fatalf("%s: error %v has no class", what, err)
}

// checkVerified fails t when an image Resolve returned does not match its
// descriptors: what opens must verify.
func checkVerified(t *testing.T, img *oci.Image) {
	t.Helper()
	match := func(what string, d ocispec.Descriptor, b []byte) {
		if int64(len(b)) != d.Size || d.Digest.Algorithm().FromBytes(b) != d.Digest {
			t.Fatalf("%s: %d bytes hashing to %s, descriptor says %d bytes %s", what, len(b), d.Digest.Algorithm().FromBytes(b), d.Size, d.Digest)
		}
	}
	match("manifest", img.Descriptor, img.RawManifest)
	if img.RawConfig != nil {
		match("config", img.Manifest.Config, img.RawConfig)
	}
}

// readAny resolves s, reads package.yaml flattened, and checks the
// properties: errors are typed, what resolves matches its digests, a file
// read to its end has its header's size and comes from a layer that
// verifies.
func readAny(t *testing.T, s oci.Store) {
	t.Helper()
	ctx := context.Background()
	img, err := oci.Resolve(ctx, s, fuzzLimits())
	checkTyped(t, "Resolve", err)
	if err != nil {
		return
	}
	checkVerified(t, img)
	f, err := oci.ReadFile(ctx, s, img.Manifest.Layers, "package.yaml", fuzzLimits())
	checkTyped(t, "ReadFile", err)
	if err != nil {
		return
	}
	defer f.Close()
	n, err := io.Copy(io.Discard, f)
	checkTyped(t, "File.Read", err)
	if err != nil {
		return
	}
	if n != f.Header.Size {
		t.Fatalf("read %d bytes of a file of %d", n, f.Header.Size)
	}
	rc, err := s.Fetch(ctx, f.Layer)
	if err != nil {
		t.Fatalf("the layer read cannot be fetched again: %v", err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(rc, f.Layer.Size+1)); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != f.Layer.Size || digest.FromBytes(buf.Bytes()) != f.Layer.Digest && f.Layer.Digest.Algorithm() == digest.SHA256 {
		t.Fatalf("a file was read from layer %s, whose blob does not verify", f.Layer.Digest)
	}
	for _, w := range f.Warnings() {
		checkTyped(t, "warning", w)
	}
}
