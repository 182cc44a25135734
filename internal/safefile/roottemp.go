package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
)

// CreateTempIn creates a new file in dir (a slash-separated path relative
// to root) named prefix and 16 random hexadecimal digits, exclusively
// (O_CREATE|O_EXCL, so a link or file planted at the name is never opened),
// for reading and writing, through root (so nothing outside it is
// reached). It returns the file and its name relative to root. The caches
// that keep their files under an os.Root (oci/cache, the verdict cache)
// write each file this way, then rename it into place.
func CreateTempIn(root *os.Root, dir, prefix string) (*os.File, string, error) {
	for range 16 {
		var rnd [8]byte
		rand.Read(rnd[:])
		name := path.Join(dir, prefix+hex.EncodeToString(rnd[:]))
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, name, nil
	}
	return nil, "", fmt.Errorf("cannot create a temporary file in %s", dir)
}
