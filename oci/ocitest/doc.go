// Package ocitest checks that a user's oci.Fetcher or oci.Store behaves as
// the readers of package oci expect, the way go-containerregistry's validate
// package checks an image, and makes images for tests.
//
// Run TestFetcher from a Fetcher's own tests, TestStore from a Store's (it
// runs TestFetcher's checks too, and checks Index):
//
//	func TestMyStore(t *testing.T) {
//		ocitest.TestStore(t, func(t *testing.T, blobs []ocitest.Blob, index ocispec.Index) oci.Store {
//			s := newMyStore(t)
//			for _, b := range blobs {
//				s.Put(b.Descriptor, b.Data)
//			}
//			s.SetIndex(index)
//			return s
//		})
//	}
//
// Image returns the same small two-platform image as blobs, for tests that
// need one. RandomImage and RandomIndex return images of any shape, made
// from a seed and the same on every run, for property tests (as
// go-containerregistry's random package does).
package ocitest
