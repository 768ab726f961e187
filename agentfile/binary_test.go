package agentfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agent3md/agent3md/internal/hashidx"
)

// catalogSources returns every parseable input the tests know: the 3md
// vectors' sources, the agent vectors and the examples.
func catalogSources(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	files, _ := filepath.Glob("testdata/conformance/3md/*.json")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Source string }
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = []byte(v.Source)
	}
	more, _ := filepath.Glob("testdata/conformance/agent3md/*.3md")
	ex, _ := filepath.Glob("../examples/*.3md")
	rules, _ := filepath.Glob("testdata/rules/*.3md") // notices to encode
	for _, f := range append(append(more, ex...), rules...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

func TestCatalogBinaryRoundTrip(t *testing.T) {
	n := 0
	for name, src := range catalogSources(t) {
		cat, err := Parse(bytes.NewReader(src), nil)
		if err != nil {
			continue // error vectors have no catalog
		}
		n++
		enc, err := cat.MarshalBinary()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := UnmarshalCatalog(enc)
		if err == nil {
			owned, oerr := UnmarshalCatalogOwned(append([]byte(nil), enc...))
			if oerr != nil || !sameCatalog(owned, got) {
				t.Fatalf("owned decode differs: %v", oerr)
			}
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !sameCatalog(got, cat) {
			t.Errorf("%s: decoded catalog differs:\n got %+v\nwant %+v", name, got, cat)
		}
		if k := len(cat.Planes) - 1; k >= 0 && got.PlaneIndex(cat.Planes[k].Z) != k {
			t.Errorf("%s: the decoded catalog's z index is not rebuilt", name)
		}
	}
	if n < 30 {
		t.Fatalf("only %d catalogs round-tripped", n)
	}
}

// TestCatalogBinaryDamage: every truncation and every flipped byte of an
// encoding is refused with ErrBadCatalog.
func TestCatalogBinaryDamage(t *testing.T) {
	src, err := os.ReadFile("testdata/conformance/agent3md/valid-deps.3md")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Parse(bytes.NewReader(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := cat.MarshalBinary()
	for i := 0; i < len(enc); i++ {
		if _, err := UnmarshalCatalog(enc[:i]); !errors.Is(err, ErrBadCatalog) {
			t.Fatalf("truncated to %d bytes: err = %v", i, err)
		}
		bad := append([]byte(nil), enc...)
		bad[i] ^= 0x40
		if _, err := UnmarshalCatalog(bad); !errors.Is(err, ErrBadCatalog) {
			t.Fatalf("byte %d flipped: err = %v", i, err)
		}
	}
}

// FuzzUnmarshalCatalog: arbitrary bytes never panic. Seeds are real
// encodings, so mutations explore damaged ones.
func FuzzUnmarshalCatalog(f *testing.F) {
	for _, src := range catalogSources(f) {
		if cat, err := Parse(bytes.NewReader(src), nil); err == nil {
			enc, _ := cat.MarshalBinary()
			f.Add(enc)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cat, err := UnmarshalCatalog(b)
		if err != nil && !errors.Is(err, ErrBadCatalog) {
			t.Fatalf("error does not wrap ErrBadCatalog: %v", err)
		}
		owned, oerr := UnmarshalCatalogOwned(append([]byte(nil), b...))
		if (err == nil) != (oerr == nil) || (err == nil && !sameCatalog(cat, owned)) {
			t.Fatalf("owned decode disagrees: %v vs %v", err, oerr)
		}
	})
}

func BenchmarkUnmarshalCatalog(b *testing.B) {
	for _, n := range []int{4000, 100000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			cat := synthCatalog(b, n)
			enc, _ := cat.MarshalBinary()
			b.SetBytes(int64(len(enc)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := UnmarshalCatalog(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sameCatalog reports whether two catalogs hold the same fields and find
// the same plane for every z. Their z indexes are compared by lookup, not
// by layout, which depends on a random hash seed.
func sameCatalog(a, b *Catalog) bool {
	if a == nil || b == nil {
		return a == b
	}
	for _, c := range []*Catalog{a, b} {
		for i := range c.Planes {
			z := c.Planes[i].Z
			if a.PlaneIndex(z) != b.PlaneIndex(z) {
				return false
			}
		}
	}
	ac, bc := *a, *b
	ac.byZ, bc.byZ = hashidx.Index[float64]{}, hashidx.Index[float64]{}
	return reflect.DeepEqual(&ac, &bc)
}
