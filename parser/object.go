package parser

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/limit"
)

// Position locates a document, or a field inside one, in its source: its
// file, document index, line, column and byte offset. It is the module's one
// position type, limit.Position, which a *limit.Error carries too.
type Position = limit.Position

// Object is one parsed document of a package: its type, its metadata and
// its position, decoded eagerly; its full content, decoded on demand.
//
// Meta objects, and objects whose kind a typed object scheme recognises
// (WithObjectScheme), are decoded fully while parsing and returned by
// Decode without further work. Other objects keep their raw bytes, a
// depth-limited Outline, and are decoded to *unstructured.Unstructured by
// Unstructured or Decode each time they are called.
type Object struct {
	// Pos is where the document starts: the first line of its content.
	Pos Position
	// TypeMeta holds the document's apiVersion and kind.
	metav1.TypeMeta
	// ObjectMeta holds the document's metadata (name, namespace, labels,
	// annotations, ...), embedded like TypeMeta so that obj.Name and
	// obj.Annotations read as they do on any Kubernetes object.
	metav1.ObjectMeta
	// DuplicateKeys lists the keys given twice in one mapping of the
	// document, in document order (at most 100; the document
	// decodes with the last value of each, as Crossplane decodes it).
	DuplicateKeys []DuplicateKey
	// MoreDuplicateKeys counts the duplicate keys beyond those 100.
	MoreDuplicateKeys int

	raw     rawBytes
	outline map[string]any
	typed   runtime.Object
	dataPos Position // position of raw[0]
	dec     *decoder
	// fast says that the parse's fast path read the document and that
	// fastContent reads it too (fastResult.content): Unstructured reads
	// it so, and any other document with the full parse at once.
	fast bool
}

// GroupVersionKind returns the object's group, version and kind.
func (o *Object) GroupVersionKind() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(o.APIVersion, o.Kind)
}

// Raw returns the document's bytes exactly as they were in the stream (from
// the line after its `---` marker, as Document.Data), or nil
// when the parser was told not to retain them (WithoutRaw). Documents are
// kept compressed, a few together, so Raw decompresses them and returns a
// new slice on each call.
func (o *Object) Raw() []byte { return o.raw.bytes() }

// RawSize returns len(o.Raw()) without decompressing the document: 0 when
// the parser was told not to retain the bytes (WithoutRaw).
func (o *Object) RawSize() int {
	if o.raw.g == nil {
		return 0
	}
	return o.raw.n
}

// RawOffset returns the byte offset in the file of Raw's first byte, so
// that a position's Offset in the file indexes Raw at Offset-RawOffset
// (suggested fixes edit the file there).
func (o *Object) RawOffset() int64 { return o.dataPos.Offset }

// Outline returns the object's content with every map and list nested deeper
// than the outline depth (WithOutlineDepth; 6 by default) present but empty.
// It is enough to read a CRD's group, names and versions, or a
// Composition's compositeTypeRef, without decoding a CRD's schema. The
// caller must not modify it: equal maps and lists in the outlines of one
// parse may be one value, shared (a provider's CRDs repeat most of
// theirs). It is nil when the outline depth is negative.
func (o *Object) Outline() map[string]any { return o.outline }

// Decode returns the object decoded through the schemes: the typed object for
// meta objects and for kinds the object scheme recognises, otherwise a new
// *unstructured.Unstructured decoded from the raw bytes.
// The typed object is the same value on every call, shared by all callers:
// copy it (DeepCopyObject) before changing it.
func (o *Object) Decode() (runtime.Object, error) {
	if o.typed != nil {
		return o.typed, nil
	}
	return o.Unstructured()
}

// Unstructured decodes the whole document into a new Unstructured value. It
// re-reads the raw bytes on every call; callers that need it often keep it.
func (o *Object) Unstructured() (*unstructured.Unstructured, error) {
	return o.decodeUnstructured()
}

// FieldPosition returns the position of the field at path inside the object:
// each element is a mapping key, or a decimal index into a sequence. For a
// mapping entry it is the position of the key. It is computed from the raw
// bytes only when asked, so parsing does not pay for it.
//
//	pos, err := obj.FieldPosition("spec", "crossplane", "version")
//	pos, err := obj.FieldPosition("spec", "dependsOn", "0", "version")
func (o *Object) FieldPosition(path ...string) (Position, error) {
	return o.fieldPosition(path)
}
