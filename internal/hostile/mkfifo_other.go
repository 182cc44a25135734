//go:build !unix

package hostile

import "errors"

// mkfifo reports that FIFOs cannot be made on this platform.
func mkfifo(string) error { return errors.ErrUnsupported }
