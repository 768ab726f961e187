package loader

import (
	"fmt"
	"testing"

	"github.com/agent3md/agent3md/internal/synth"
)

var benchSizes = []int{10, 1_000, 4_000, 100_000}

func openSynth(b *testing.B, n int) *Agent {
	b.Helper()
	a, err := Open(synth.Path(b, n), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	return a
}

// pickNames returns up to k skill names spread over the agent.
func pickNames(a *Agent, k int) []string {
	skills := a.Skills()
	var out []string
	step := max(1, len(skills)/k)
	for i := 0; i < len(skills) && len(out) < k; i += step {
		out = append(out, skills[i].Name)
	}
	return out
}

// BenchmarkBody gets one verified body (stat, pread, CRC-32C) from agents
// of each size; the bar is a median of at most 20 µs at any size.
func BenchmarkBody(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			a := openSynth(b, n)
			names := pickNames(a, 64)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, err := a.Body(bg, names[i%len(names)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpen scans a whole agent and builds the lookup tables.
func BenchmarkOpen(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			path := synth.Path(b, n)
			b.ReportAllocs()
			for b.Loop() {
				a, err := Open(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				a.Close()
			}
		})
	}
}

// BenchmarkOpenCached is a warm start: the catalog decoded from the
// catalog cache instead of scanned.
func BenchmarkOpenCached(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			path := synth.Path(b, n)
			opts := &Options{CatalogCache: b.TempDir()}
			a, err := Open(path, opts) // fills the cache
			if err != nil {
				b.Fatal(err)
			}
			a.Close()
			b.ReportAllocs()
			for b.Loop() {
				a, err := Open(path, opts)
				if err != nil {
					b.Fatal(err)
				}
				if !a.CatalogCached() {
					b.Fatal("catalog not read from the cache")
				}
				a.Close()
			}
		})
	}
}

// BenchmarkResolve resolves the skills with the longest chains of a
// 4,000-skill agent (bodies included).
func BenchmarkResolve(b *testing.B) {
	a := openSynth(b, 4_000)
	st := a.current()
	var names []string
	for i, s := range st.info.Skills {
		if len(st.chain(i)) >= 3 {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		b.Skip("no dependency chains in the synthetic agent")
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := a.Resolve(bg, names[i%len(names)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSkillMD renders a skill with its references.
func BenchmarkSkillMD(b *testing.B) {
	a := openSynth(b, 4_000)
	names := pickNames(a, 64)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := a.SkillMD(bg, names[i%len(names)]); err != nil {
			b.Fatal(err)
		}
	}
}

// sampleValue is a valid value of each input type.
var sampleValue = map[string]string{
	"string": "it's here", "number": "3", "boolean": "true", "object": `{"a":1}`, "array": "[1,2]",
}

// BenchmarkCommand fills a command template with typed checks.
func BenchmarkCommand(b *testing.B) {
	a := openSynth(b, 1_000)
	var name string
	var values map[string]string
	for _, s := range a.Info().Skills {
		if s.HasTool && len(s.Inputs) >= 2 {
			name, values = s.Name, map[string]string{}
			for _, in := range s.Inputs {
				values[in.Name] = sampleValue[in.Type]
			}
			break
		}
	}
	if name == "" {
		b.Skip("no skill with a tool")
	}
	b.ReportAllocs()
	for b.Loop() {
		f, err := a.Command(name, values)
		if err != nil || !f.Ready {
			b.Fatalf("%+v %v", f, err)
		}
	}
}

// BenchmarkClosest finds "did you mean" names among 100,000 skills.
func BenchmarkClosest(b *testing.B) {
	a := openSynth(b, 100_000)
	b.ReportAllocs()
	for b.Loop() {
		a.Closest("sumarize-reprot", 3)
	}
}
