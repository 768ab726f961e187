package skillsdir

import (
	"context"
	"runtime"
	"testing"
)

// BenchmarkScan10000 scans a generated folder of 10,000 skills (one in
// ten with a references/ file), warm in the page cache after the first
// iteration.
func BenchmarkScan10000(b *testing.B) {
	root := b.TempDir()
	generate(b, root, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	var c *Catalog
	for b.Loop() {
		var err error
		if c, err = Scan(context.Background(), []string{root}, nil); err != nil {
			b.Fatal(err)
		}
		if c.Len() != 10_000 {
			b.Fatalf("scanned %d skills, want 10000", c.Len())
		}
	}
	b.StopTimer()
	// What the catalog keeps: the heap after a collection, with and
	// without it.
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	runtime.KeepAlive(c)
	c = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	b.ReportMetric(float64(int64(with.HeapAlloc)-int64(without.HeapAlloc))/10_000, "kept-B/skill")
}

// BenchmarkReadFile reads one SKILL.md through every check.
func BenchmarkReadFile(b *testing.B) {
	c := scan(b, nil, "testdata/tree")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.ReadFile(context.Background(), "deploy", "SKILL.md"); err != nil {
			b.Fatal(err)
		}
	}
}
