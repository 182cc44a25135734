// Package ocitest checks that a user's oci.Fetcher behaves as the readers of
// package oci expect, the way go-containerregistry's validate package checks
// an image. Run TestFetcher from the Fetcher's own tests:
//
//	func TestMyStore(t *testing.T) {
//		ocitest.TestFetcher(t, func(t *testing.T, blobs []ocitest.Blob) oci.Fetcher {
//			s := newMyStore(t)
//			for _, b := range blobs {
//				s.Put(b.Descriptor, b.Data)
//			}
//			return s
//		})
//	}
//
// Image returns the same small two-platform image as blobs, for tests that
// need one.
package ocitest
