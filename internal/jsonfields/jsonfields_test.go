package jsonfields

import (
	"reflect"
	"testing"
)

type inner struct {
	B int `json:"b"`
}

type outer struct {
	inner `json:",inline"`
	A     string `json:"a,omitempty"`
	Skip  int    `json:"-"`
	Plain bool
	lower int
}

func TestOf(t *testing.T) {
	t.Parallel()
	got := Of(reflect.TypeFor[outer]())
	want := map[string]reflect.Type{
		"b":     reflect.TypeFor[int](),
		"a":     reflect.TypeFor[string](),
		"Plain": reflect.TypeFor[bool](),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Of(outer) = %v, want %v", got, want)
	}
	if again := Of(reflect.TypeFor[outer]()); reflect.ValueOf(again).Pointer() != reflect.ValueOf(got).Pointer() {
		t.Error("Of did not return the cached map")
	}
	_ = outer{}.lower
}
