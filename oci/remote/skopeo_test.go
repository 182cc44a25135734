package remote_test

import (
	"context"
	"crypto/sha256"
	"os"
	"os/exec"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// TestSkopeoCorpus pushes every corpus .xpkg with skopeo and reads it back
// by reference: package.yaml is the same as in the local .xpkg.
func TestSkopeoCorpus(t *testing.T) {
	t.Parallel()
	skopeo, err := exec.LookPath("skopeo")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("skopeo is not installed (CI installs it: see .ci/run)")
		}
		t.Skip("skopeo is not installed: apt-get install skopeo")
	}
	reg := registrytest.Start(t, registrytest.Plain)
	c, _ := remote.New(remote.WithAnonymous())
	for _, name := range testcorpus.Names() {
		t.Run(name, func(t *testing.T) {
			if (testing.Short() || raceEnabled) && name == "provider-upjet-aws-monolith" {
				t.Skip("-short and -race: the 100 MB package (.ci/run pulls it without -race)")
			}
			local := testcorpus.Path(t, name+".xpkg")
			ref := reg.Host + "/corpus/" + name + ":v1"
			out, err := exec.Command(skopeo, "copy", "--quiet", "--dest-tls-verify=false",
				"docker-archive:"+local, "docker://"+ref).CombinedOutput()
			if err != nil {
				t.Fatalf("skopeo copy: %v\n%s", err, out)
			}
			src, want := openCorpus(t, name+".xpkg")
			img, r, err := c.Pull(context.Background(), ref)
			if err != nil {
				t.Fatal(err)
			}
			if img.Manifest.Config.Digest != want.Manifest.Config.Digest {
				t.Errorf("config %s, local %s", img.Manifest.Config.Digest, want.Manifest.Config.Digest)
			}
			if len(img.Manifest.Layers) > 0 && img.Manifest.Layers[0].Digest != want.Manifest.Layers[0].Digest {
				// skopeo recompresses a docker archive's layers: the
				// config labels no longer name them, and package.yaml
				// comes from the flattened filesystem.
				t.Logf("layer recompressed by skopeo: %s, was %s", img.Manifest.Layers[0].Digest, want.Manifest.Layers[0].Digest)
			}
			got := sha256.Sum256(readPackageYAML(t, r, img))
			exp := sha256.Sum256(readPackageYAML(t, src, want))
			if got != exp {
				t.Errorf("package.yaml sha256 %x by reference, %x in the .xpkg", got, exp)
			}
		})
	}
}
