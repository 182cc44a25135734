package verify_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

// Verify a package against an ImageConfig's verification with a key given
// as PEM data; without a signature the error says so.
func Example() {
	v, err := verify.New(verify.WithPublicKey("cosign-pub", "cosign.pub", []byte("not a key")))
	if err != nil {
		fmt.Println(err)
		return
	}
	policy := &imageconfig.Verification{Provider: "Cosign", Cosign: &imageconfig.Cosign{Authorities: []imageconfig.CosignAuthority{{
		Name: "release-key",
		Key:  &imageconfig.KeyRef{SecretRef: imageconfig.SecretKeySelector{Name: "cosign-pub", Key: "cosign.pub"}},
	}}}}
	_, err = v.Verify(context.Background(), "registry.example.com/provider-nop:v1", policy)
	fmt.Println(errors.Is(err, verify.ErrPolicy))
	// Output: true
}
