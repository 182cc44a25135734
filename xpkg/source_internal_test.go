package xpkg

import (
	"archive/tar"
	"bytes"
	"fmt"
	"testing"
)

func TestSniff(t *testing.T) {
	t.Parallel()
	var ustar bytes.Buffer
	tw := tar.NewWriter(&ustar)
	if err := tw.WriteHeader(&tar.Header{Name: "a", Mode: 0o644, Size: 1, Format: tar.FormatUSTAR}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	// A V7 header: no magic, a valid checksum.
	v7 := bytes.Clone(ustar.Bytes()[:512])
	copy(v7[257:265], make([]byte, 8))
	var sum int
	for i, b := range v7 {
		if i >= 148 && i < 156 {
			b = ' '
		}
		sum += int(b)
	}
	copy(v7[148:156], fmt.Sprintf("%06o\x00 ", sum))
	badSum := bytes.Clone(v7)
	badSum[0] = 'b'

	lateNUL := append(bytes.Repeat([]byte("a: b\n"), 120), 0)
	cases := []struct {
		name string
		head []byte
		want content
	}{
		{"gzip", []byte{0x1f, 0x8b, 8, 0}, contentImage},
		{"ustar", ustar.Bytes(), contentImage},
		{"v7 tar", v7, contentImage},
		{"v7 tar with a bad checksum", badSum, contentBinary},
		{"yaml", []byte("apiVersion: v1\nkind: ConfigMap\n"), contentText},
		{"empty", nil, contentText},
		{"elf", []byte("\x7fELF\x02\x01\x01\x00"), contentBinary},
		{"NUL past the window", lateNUL, contentText},
		{"not UTF-8", []byte("name: caf\xe9\n"), contentText},
	}
	for _, tc := range cases {
		if got := sniff(tc.head); got != tc.want {
			t.Errorf("%s: sniff = %d, want %d", tc.name, got, tc.want)
		}
	}
}
