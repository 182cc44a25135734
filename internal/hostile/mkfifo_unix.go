//go:build unix

package hostile

import "syscall"

// mkfifo creates a FIFO at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
