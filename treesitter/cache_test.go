package treesitter

import (
	"reflect"
	"testing"
)

type mapCache struct {
	m           map[string][]byte
	loads, hits int
}

func (c *mapCache) LoadCached(kind, key string) []byte {
	c.loads++
	d, ok := c.m[kind+"/"+key]
	if ok {
		c.hits++
	}
	return d
}

func (c *mapCache) StoreCached(kind, key string, data []byte) { c.m[kind+"/"+key] = data }

// The cached outline is the parsed one, stored once and read back after;
// other bytes or another language are another entry.
func TestOutlineCached(t *testing.T) {
	src := []byte("package p\n\nfunc A() {}\n\ntype T struct{}\n\nfunc (T) M() {}\n")
	c := &mapCache{m: map[string][]byte{}}
	want := Outline("p.go", src)
	if len(want) == 0 {
		t.Fatal("no anchors parsed")
	}
	for i := 0; i < 2; i++ {
		if got := OutlineCached(c, "p.go", src); !reflect.DeepEqual(got, want) {
			t.Fatalf("call %d: %+v, want %+v", i, got, want)
		}
	}
	if len(c.m) != 1 || c.hits != 1 {
		t.Fatalf("entries %d, hits %d: want one entry, read back once", len(c.m), c.hits)
	}
	OutlineCached(c, "p.go", append(src, "func B() {}\n"...))
	OutlineCached(c, "p.c", []byte("int a(void) { return 0; }\n"))
	if len(c.m) != 3 {
		t.Fatalf("entries %d, want 3", len(c.m))
	}
	if got := OutlineCached(c, "notes.txt", []byte("x")); got != nil || len(c.m) != 3 {
		t.Fatalf("an unsupported file: %v, %d entries", got, len(c.m))
	}
}
