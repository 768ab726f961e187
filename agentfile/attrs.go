package agentfile

import (
	"bytes"
	"encoding/json"
	"sort"
)

// Attr is one directive attribute.
type Attr struct {
	Key   string
	Value string
}

// Attrs are a plane's attributes other than z, x, y and label, one per key
// (a repeated key keeps its last value), sorted by key. A slice instead of a
// map keeps a catalog of 100,000 planes some 25 MB smaller.
type Attrs []Attr

// Get returns the value of key and whether it is set.
func (a Attrs) Get(key string) (string, bool) {
	if len(a) <= 8 {
		// A directive holds a handful of keys: scanning them beats a
		// binary search's closure calls.
		for _, kv := range a {
			if kv.Key == key {
				return kv.Value, true
			}
		}
		return "", false
	}
	i := sort.Search(len(a), func(i int) bool { return a[i].Key >= key })
	if i < len(a) && a[i].Key == key {
		return a[i].Value, true
	}
	return "", false
}

// Value returns the value of key, or "" when it is not set.
func (a Attrs) Value(key string) string {
	v, _ := a.Get(key)
	return v
}

// Map returns the attributes as a new map.
func (a Attrs) Map() map[string]string {
	m := make(map[string]string, len(a))
	for _, kv := range a {
		m[kv.Key] = kv.Value
	}
	return m
}

// MarshalJSON writes the attributes as a JSON object in key order.
func (a Attrs) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.Key)
		v, _ := json.Marshal(kv.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// set assigns key=value, replacing an earlier value of the same key. The
// slice stays unsorted until sortAttrs; directives hold a handful of keys,
// so the linear search is cheaper than a map.
func (a Attrs) set(key, value string) Attrs {
	for i := range a {
		if a[i].Key == key {
			a[i].Value = value
			return a
		}
	}
	return append(a, Attr{Key: key, Value: value})
}

// take removes key and returns its value.
func (a *Attrs) take(key string) (string, bool) {
	for i, kv := range *a {
		if kv.Key == key {
			*a = append((*a)[:i], (*a)[i+1:]...)
			return kv.Value, true
		}
	}
	return "", false
}
