package apiserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVerdictKey requires a key per rule, target line and object bytes:
// changing any of them changes the key, and keys are hex digests.
func TestVerdictKey(t *testing.T) {
	t.Parallel()
	base := verdictKey("XP420", "v2.4", []byte("a: 1\n"))
	if len(base) != 64 || strings.Trim(base, "0123456789abcdef") != "" {
		t.Fatalf("key %q: want 64 hex digits", base)
	}
	for _, tc := range []struct {
		name       string
		rule, line string
		raw        string
	}{
		{"rule", "XP421", "v2.4", "a: 1\n"},
		{"line", "XP420", "v2.1", "a: 1\n"},
		{"bytes", "XP420", "v2.4", "a: 2\n"},
		{"a byte more", "XP420", "v2.4", "a: 1\n\n"},
	} {
		if k := verdictKey(tc.rule, tc.line, []byte(tc.raw)); k == base {
			t.Errorf("%s: same key as the base", tc.name)
		}
	}
	if k := verdictKey("XP420", "v2.4", []byte("a: 1\n")); k != base {
		t.Errorf("the same input gives another key")
	}
	if !strings.Contains(validatorIdentity(), "k8s.io/apiextensions-apiserver") {
		t.Errorf("validator identity %q names no apiextensions-apiserver version", validatorIdentity())
	}
	// The versions used where the program has no build information are
	// go.mod's.
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range validatorModules {
		if m.version != "" && !strings.Contains(string(gomod), "\t"+m.path+" "+m.version+"\n") && !strings.Contains(string(gomod), "\t"+m.path+" "+m.version+" ") {
			t.Errorf("validatorModules: %s %s is not go.mod's version", m.path, m.version)
		}
	}
	if targetLine("v2.1.3") != targetLine("v2.1.0") || targetLine("v2.1.3") == targetLine("v2.2.0") {
		t.Errorf("target lines: v2.1.3 %q, v2.1.0 %q, v2.2.0 %q", targetLine("v2.1.3"), targetLine("v2.1.0"), targetLine("v2.2.0"))
	}
}

func TestEntryRoundTrip(t *testing.T) {
	t.Parallel()
	many := make([]finding, 73)
	for i := range many {
		many[i] = finding{path: []string{"spec", "versions", fmt.Sprint(i)}, msg: fmt.Sprintf("Invalid value: %d", i)}
	}
	for _, tc := range []struct {
		name string
		fs   []finding
	}{
		{"none", nil},
		{"one at the object", []finding{{msg: "cannot convert"}}},
		{"two", []finding{{path: []string{"spec", "names", "kind"}, msg: "Required value"}, {path: []string{"spec", "group"}, msg: `Invalid value: "a\u2028b"`}}},
		{"more than kept", many},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const key = "k1"
			b, ok := encodeEntry(key, tc.fs, len(tc.fs))
			if !ok {
				t.Fatal("not encoded")
			}
			fs, total, ok := decodeEntry(key, b)
			if !ok {
				t.Fatal("not decoded")
			}
			want := tc.fs[:min(len(tc.fs), maxFindings)]
			if total != len(tc.fs) || len(fs) != len(want) || (len(want) > 0 && !cmp.Equal(want, fs, cmp.AllowUnexported(finding{}), cmp.Comparer(func(a, b []string) bool {
				return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
			}))) {
				t.Errorf("decoded %d of %d: %v; want %d: %v", len(fs), total, fs, len(tc.fs), want)
			}
			if _, _, ok := decodeEntry("k2", b); ok {
				t.Error("an entry of another key is read")
			}
		})
	}
}

// sealed builds an entry with body js, its checksum right.
func sealed(js string) []byte {
	sum := sha256.Sum256([]byte(js))
	return []byte(entryMagic + hex.EncodeToString(sum[:]) + "\n" + js)
}

// TestEntryLies requires every entry that is not one written for its key
// within the bounds to be a miss.
func TestEntryLies(t *testing.T) {
	t.Parallel()
	good, _ := encodeEntry("k", []finding{{path: []string{"spec"}, msg: "m"}}, 1)
	flipped := bytes.Clone(good)
	flipped[len(flipped)-3] ^= 1
	long := strings.Repeat("x", maxMessage+1)
	var fifty strings.Builder
	for i := range maxFindings + 1 {
		if i > 0 {
			fifty.WriteString(",")
		}
		fifty.WriteString(`{"path":[],"msg":"m"}`)
	}
	for _, tc := range []struct {
		name  string
		entry []byte
	}{
		{"empty", nil},
		{"no magic", []byte(`{"key":"k","total":0,"findings":[]}`)},
		{"truncated", good[:len(good)-1]},
		{"truncated in the checksum", good[:len(entryMagic)+10]},
		{"a byte changed", flipped},
		{"checksum not hex", []byte(entryMagic + strings.Repeat("z", 64) + "\n{}")},
		{"another key", sealed(`{"key":"other","total":0,"findings":[]}`)},
		{"unknown field", sealed(`{"key":"k","total":0,"findings":[],"verdict":"ok"}`)},
		{"two values", sealed(`{"key":"k","total":0,"findings":[]}{}`)},
		{"fewer in all than listed", sealed(`{"key":"k","total":0,"findings":[{"path":[],"msg":"m"}]}`)},
		{"more left out than kept", sealed(`{"key":"k","total":9,"findings":[{"path":[],"msg":"m"}]}`)},
		{"a count past the bound", sealed(fmt.Sprintf(`{"key":"k","total":%d,"findings":[]}`, maxTotal+1))},
		{"a negative count", sealed(`{"key":"k","total":-1,"findings":[]}`)},
		{"more findings than reported", sealed(`{"key":"k","total":51,"findings":[` + fifty.String() + `]}`)},
		{"a message past the bound", sealed(`{"key":"k","total":1,"findings":[{"path":[],"msg":"` + long + `"}]}`)},
		{"a path past the bound", sealed(`{"key":"k","total":1,"findings":[{"path":[` + strings.TrimSuffix(strings.Repeat(`"a",`, maxPathLen+1), ",") + `],"msg":"m"}]}`)},
		{"a path of numbers", sealed(`{"key":"k","total":1,"findings":[{"path":[1],"msg":"m"}]}`)},
		{"too large", append(bytes.Clone(good), bytes.Repeat([]byte(" "), maxEntryBytes)...)},
	} {
		if fs, total, ok := decodeEntry("k", tc.entry); ok {
			t.Errorf("%s: read as %d findings of %d; want a miss", tc.name, len(fs), total)
		}
	}
	if _, _, ok := decodeEntry("k", good); !ok {
		t.Error("the good entry is a miss")
	}
}

// TestEntryBounds requires findings past an entry's bounds not to be
// stored.
func TestEntryBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		fs    []finding
		total int
	}{
		{"a long message", []finding{{msg: strings.Repeat("m", maxMessage+1)}}, 1},
		{"a deep path", []finding{{path: make([]string, maxPathLen+1)}}, 1},
		{"a long segment", []finding{{path: []string{strings.Repeat("s", maxSegment+1)}}}, 1},
		{"too many in all", nil, maxTotal + 1},
	} {
		if _, ok := encodeEntry("k", tc.fs, tc.total); ok {
			t.Errorf("%s: stored", tc.name)
		}
	}
}
