package mod

import (
	"errors"
	"io"
)

// Answer is a constant with a value.
const Answer = 42

// Kind is a kind.
type Kind int

// Mode is a typed constant.
const Mode Kind = iota

const hidden = 1

// ErrX is an error.
var ErrX = errors.New("x")

// Thing is a thing.
type Thing struct {
	io.Reader
	Size int64
	name string
}

// Option configures New.
type Option func(*Thing)

// Getter gets.
type Getter interface {
	Get(key string) (string, bool)
	unexported()
}

// New returns a thing.
func New(name string,
	opts ...Option,
) (*Thing, error) {
	return &Thing{name: name}, nil
}

// Name returns the name.
func (t *Thing) Name() string { return t.name }

func (t *Thing) secret() {}

type hiddenType struct{}

// Exported is a method of an unexported type.
func (hiddenType) Exported() {}
