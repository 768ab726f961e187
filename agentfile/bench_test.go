package agentfile

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/agent3md/agent3md/internal/synth"
)

// BenchmarkParse scans synthetic agents from memory, so the figure is the
// scanner's own cost, not the disk's. Bars (issue 2): 4,000 skills in at most
// 40 ms and 100,000 skills (~110 MB) in at most 1.0 s, medians.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{1000, 4000, 100000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			src, err := os.ReadFile(synth.Path(b, n))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			b.ResetTimer()
			var cat *Catalog
			for i := 0; i < b.N; i++ {
				cat, err = Parse(bytes.NewReader(src), nil)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			src = nil
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-heap-MB")
			runtime.KeepAlive(cat)
		})
	}
}

// synthCatalog scans the synthetic agent of n skills, for benchmarks of
// what comes after the scan.
func synthCatalog(b *testing.B, n int) *Catalog {
	b.Helper()
	src, err := os.ReadFile(synth.Path(b, n))
	if err != nil {
		b.Fatal(err)
	}
	cat, err := Parse(bytes.NewReader(src), nil)
	if err != nil {
		b.Fatal(err)
	}
	return cat
}

// BenchmarkAgent is the agent3md/1 reading of a scanned catalog, which
// every start pays after decoding or scanning.
func BenchmarkAgent(b *testing.B) {
	for _, n := range []int{4000, 100000} {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			cat := synthCatalog(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if a := cat.Agent(); len(a.Skills) != n {
					b.Fatalf("%d skills, want %d", len(a.Skills), n)
				}
			}
		})
	}
}
