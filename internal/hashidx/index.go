package hashidx

import (
	"hash/maphash"
	"math"
	"math/bits"
)

// Index holds keys in insertion order and finds a key's position. Keys
// compare with ==, so -0.0 finds 0.0 and NaN finds nothing, as in a Go map.
// The zero Index is empty and ready to use. Not safe for concurrent
// writes; concurrent Finds are safe once writing has stopped.
type Index[K comparable] struct {
	seed  maphash.Seed
	keys  []K
	slots []int32 // position+1 of the key owning the slot; 0 when free
	used  int     // slots taken (distinct keys)
}

// New returns an Index sized for n keys.
func New[K comparable](n int) *Index[K] {
	x := &Index[K]{keys: make([]K, 0, n)}
	x.grow(n)
	return x
}

// Keys returns the keys in the order they were added. The caller must not
// modify it.
func (x *Index[K]) Keys() []K { return x.keys }

// Add appends k at position len(Keys()) and returns the position an equal key
// already had, with true, or (-1, false). When k is new, or replace is
// true, Find(k) returns the new position from then on; otherwise it keeps
// returning the first.
func (x *Index[K]) Add(k K, replace bool) (prev int, dup bool) {
	if len(x.keys) >= 1<<31-2 {
		// Callers bound their keys far below this (agentfile caps planes
		// at 2^30); reaching it is a bug, not bad input.
		panic("hashidx: more than 2^31-2 keys")
	}
	if 2*(x.used+1) > len(x.slots) {
		x.grow(2 * (x.used + 1))
	}
	pos := len(x.keys)
	x.keys = append(x.keys, k)
	s := x.probe(k)
	if old := x.slots[s]; old != 0 {
		if replace {
			x.slots[s] = int32(pos + 1)
		}
		return int(old - 1), true
	}
	x.slots[s] = int32(pos + 1)
	x.used++
	return -1, false
}

// Find returns the position Find reports for k (see Add), or (-1, false).
func (x *Index[K]) Find(k K) (int, bool) {
	if x.used == 0 {
		return -1, false
	}
	if p := x.slots[x.probe(k)]; p != 0 {
		return int(p - 1), true
	}
	return -1, false
}

// probe returns the slot holding k, or the free slot where k would go.
// The table is at most half full, so linear probing ends quickly.
func (x *Index[K]) probe(k K) int {
	mask := len(x.slots) - 1
	s := int(x.hash(k)) & mask
	for {
		p := x.slots[s]
		if p == 0 || x.keys[p-1] == k {
			return s
		}
		s = (s + 1) & mask
	}
}

// hash takes maphash's direct paths for the key types catalogs use; they
// are several times faster than its generic one.
func (x *Index[K]) hash(k K) uint64 {
	switch v := any(k).(type) {
	case string:
		return maphash.String(x.seed, v)
	case float64:
		if v == 0 {
			v = 0 // -0 == 0: one hash for both
		}
		b := math.Float64bits(v)
		return maphash.Bytes(x.seed, []byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(b >> 32), byte(b >> 40), byte(b >> 48), byte(b >> 56)})
	}
	return maphash.Comparable(x.seed, k)
}

// grow resizes the table to at least twice n slots (a power of two) and
// re-inserts the keys.
func (x *Index[K]) grow(n int) {
	if x.slots == nil {
		x.seed = maphash.MakeSeed()
	}
	size := 8
	if n > 4 {
		size = 1 << bits.Len(uint(2*n-1))
	}
	if size <= len(x.slots) {
		return
	}
	old := x.slots
	x.slots = make([]int32, size)
	for _, p := range old {
		if p != 0 {
			x.slots[x.probe(x.keys[p-1])] = p
		}
	}
}
