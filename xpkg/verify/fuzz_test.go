package verify

import (
	"testing"

	"github.com/sigstore/sigstore-go/pkg/bundle"
)

// FuzzArtefacts: the readers of registry-supplied signature data (a
// bundle's JSON, a legacy Rekor bundle annotation, a simple-signing
// payload) never panic, whatever the bytes.
func FuzzArtefacts(f *testing.F) {
	f.Add([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","verificationMaterial":{"publicKey":{"hint":"x"}},"dsseEnvelope":{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[{"sig":"AA=="}]}}`))
	f.Add([]byte(`{"SignedEntryTimestamp":"AA==","Payload":{"body":"e30=","integratedTime":1,"logIndex":0,"logID":"00"}}`))
	f.Add([]byte(`{"critical":{"image":{"docker-manifest-digest":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b bundle.Bundle
		if err := b.UnmarshalJSON(data); err == nil {
			_, _ = b.VerificationContent()
			_, _ = b.SignatureContent()
			_, _ = b.TlogEntries()
			_, _ = b.Timestamps()
		}
		if e, err := rekorBundleEntry(data); err == nil {
			_ = e.HasInclusionPromise()
		}
		_, _ = simpleSigningDigest(data)
	})
}
