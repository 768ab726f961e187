package hashidx

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAgainstMap: any sequence of adds, with and without replace, finds
// exactly what a map[K]int kept the same way finds.
func TestAgainstMap(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100, 5000} {
		for _, hint := range []int{0, n} {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(hint)))
			x := New[string](hint)
			want := map[string]int{}
			for i := 0; i < n; i++ {
				k := strconv.Itoa(rng.IntN(n/2 + 1))
				replace := rng.IntN(3) == 0
				prev, dup := x.Add(k, replace)
				old, had := want[k]
				if dup != had || (had && prev != old) {
					t.Fatalf("n=%d: Add(%q) = %d, %v; map had %d, %v", n, k, prev, dup, old, had)
				}
				if !had || replace {
					want[k] = i
				}
			}
			for k, p := range want {
				if got, ok := x.Find(k); !ok || got != p {
					t.Fatalf("n=%d: Find(%q) = %d, %v; want %d", n, k, got, ok, p)
				}
			}
			if _, ok := x.Find("absent"); ok {
				t.Fatalf("n=%d: found a key never added", n)
			}
			if len(x.Keys()) != n {
				t.Fatalf("%d keys, want %d", len(x.Keys()), n)
			}
		}
	}
}

func TestFloatKeys(t *testing.T) {
	var x Index[float64] // the zero Index works
	if _, ok := x.Find(1); ok {
		t.Fatal("empty index found a key")
	}
	x.Add(0, false)
	x.Add(2.5, false)
	x.Add(math.NaN(), false)
	if p, ok := x.Find(math.Copysign(0, -1)); !ok || p != 0 {
		t.Errorf("-0 finds %d, %v; want 0 as a map does", p, ok)
	}
	if _, ok := x.Find(math.NaN()); ok {
		t.Error("NaN was found; a map never finds it")
	}
	if p, ok := x.Find(2.5); !ok || p != 1 || x.Keys()[1] != 2.5 {
		t.Errorf("Find(2.5) = %d, %v", p, ok)
	}
}

func BenchmarkBuild(b *testing.B) {
	keys := make([]string, 100000)
	for i := range keys {
		keys[i] = "skill-" + strconv.Itoa(i*7919)
	}
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			x := New[string](len(keys))
			for _, k := range keys {
				x.Add(k, false)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			m := make(map[string]int, len(keys))
			for i, k := range keys {
				if _, dup := m[k]; !dup {
					m[k] = i
				}
			}
		}
	})
}
