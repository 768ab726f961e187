package router

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// sameStats fails t unless got and want are the same statistics, however
// their terms are numbered.
func sameStats(t *testing.T, name string, got, want *termStats) {
	t.Helper()
	if !reflect.DeepEqual(tableByTerm(got), tableByTerm(want)) {
		t.Fatalf("%s: postings differ from the index's", name)
	}
	for term, id := range want.ids {
		if _, idf := got.term(term); idf != want.idf[id] {
			t.Fatalf("%s: idf of %q %v, the index's %v", name, term, idf, want.idf[id])
		}
	}
	if got.avgLength != want.avgLength || got.absentIDF != want.absentIDF || !slices.Equal(got.lengthNorm, want.lengthNorm) {
		t.Fatalf("%s: average length %v (index %v), absent idf %v (%v), or the length norms differ",
			name, got.avgLength, want.avgLength, got.absentIDF, want.absentIDF)
	}
}

// TestWarmStatsFromFile: a warm router reads its term statistics from the
// entry's file, and they are the ones bleve's index holds, whether the
// entry was built in the foreground (statistics read out of the new
// index), in the background (the analyzer's) or opened by Prepare.
func TestWarmStatsFromFile(t *testing.T) {
	ctx := context.Background()
	for _, ag := range relevanceAgents(t) {
		for _, background := range []bool{false, true} {
			opts := &Options{CacheDir: t.TempDir(), ContentHash: "5eed", MemoryThreshold: -1, Background: background}
			cold := newTest(t, ag.skills, opts)
			if _, err := cold.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			if info := cold.Info(); info.Index != IndexCacheBuilt {
				t.Fatalf("%s: cold open %+v, want a built entry", ag.name, info)
			}
			cold.Close()
			warm := newTest(t, ag.skills, opts)
			name := ag.name
			if background {
				name += "/background"
			}
			if info := warm.Info(); info.Index != IndexCacheHit || info.Reason != "" {
				t.Fatalf("%s: warm open %+v, want a clean cache hit", name, info)
			}
			saved, err := readStats(filepath.Join(warm.Info().Path, statsName), len(ag.skills))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			fresh, err := statsFromIndex(ctx, warm.idx, len(ag.skills))
			if err != nil {
				t.Fatal(err)
			}
			sameStats(t, name, warm.scorer, fresh)
			sameStats(t, name+" file", saved, fresh)
			if !background && !reflect.DeepEqual(warm.scorer, fresh) {
				t.Fatalf("%s: statistics differ from the index's in term numbering", name)
			}
			warm.Close()
			p, err := Prepare(ctx, opts)
			if err != nil || p == nil {
				t.Fatalf("%s: Prepare: %v, %v", name, p, err)
			}
			withPrep := *opts
			withPrep.Prepared = p
			prep := newTest(t, ag.skills, &withPrep)
			if info := prep.Info(); !info.Prepared || info.Reason != "" {
				t.Fatalf("%s: prepared open %+v", name, info)
			}
			sameStats(t, name+" prepared", prep.scorer, fresh)
			prep.Close()
		}
	}
}

// TestStatsFileFallback: a statistics file the manifest vouches for but
// that does not decode (what a writer's fault would leave) is not
// trusted: the statistics are read out of the index, Info says why, and
// routes are unchanged; a Prepare'd entry does the same.
func TestStatsFileFallback(t *testing.T) {
	ctx := context.Background()
	skills := genSkills(300)
	opts := cacheOpts(t.TempDir())
	r := newTest(t, skills, opts)
	entry := r.Info().Path
	r.Close()
	corpus := &corpus{skills: Skills(skills), bodyTerms: DefaultBodyTerms}
	for _, bad := range [][]byte{nil, []byte(statsMagic), []byte("A3TS\x00\x00\x00\x00\x00\x00\xf0\x3f\xff\xff\xff\xff\x0f")} {
		if err := os.WriteFile(filepath.Join(entry, statsName), bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := writeManifest(entry, testHash, len(skills), fingerprint(corpus)); err != nil {
			t.Fatal(err)
		}
		warm := newTest(t, skills, opts)
		if info := warm.Info(); info.Index != IndexCacheHit || !strings.Contains(info.Reason, "term statistics read from the index") || !strings.Contains(info.Reason, errBadStats.Error()) {
			t.Fatalf("%q: %+v, want a cache hit saying the statistics file was not used", bad, info)
		}
		fresh, err := statsFromIndex(ctx, warm.idx, len(skills))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(warm.scorer, fresh) {
			t.Fatalf("%q: fallback statistics differ from the index's", bad)
		}
		sameRoutes(t, warm, skills)
		warm.Close()
		p, err := Prepare(ctx, opts)
		if err != nil || p == nil {
			t.Fatalf("Prepare: %v, %v", p, err)
		}
		withPrep := *opts
		withPrep.Prepared = p
		prep := newTest(t, skills, &withPrep)
		if info := prep.Info(); !info.Prepared || !strings.Contains(info.Reason, "term statistics read from the index") {
			t.Fatalf("%q: prepared open %+v, want it to say why", bad, info)
		}
		prep.Close()
	}
}

// statsFile is an encoded statistics file for tests, built item by item.
type statsFile []byte

func (f statsFile) uv(v ...uint64) statsFile {
	for _, x := range v {
		f = binary.AppendUvarint(f, x)
	}
	return f
}

func (f statsFile) fl(v ...float64) statsFile {
	for _, x := range v {
		f = binary.LittleEndian.AppendUint64(f, math.Float64bits(x))
	}
	return f
}

func (f statsFile) s(v string) statsFile { return append(f, v...) }

// TestStatsCodec: the statistics survive their file; every truncation and
// every damaged item the decoder can see is refused with errBadStats,
// allocating no more than a few hundred kilobytes whatever a length says.
func TestStatsCodec(t *testing.T) {
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	skills := append(genSkills(40), Skill{Name: "odd", Z: 99, Triggers: []string{"Ärger melden"}, Description: "über alles"})
	want, err := buildTermStats(context.Background(), &corpus{m: m, skills: Skills(skills)})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), statsName)
	if err := writeStats(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := readStats(path, len(skills))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("statistics changed through their file")
	}
	if _, err := readStats(path, len(skills)-1); !errors.Is(err, errBadStats) {
		t.Errorf("read for another number of skills: %v, want errBadStats", err)
	}
	data, _ := os.ReadFile(path)
	for n := 0; n < len(data); n++ {
		if _, err := decodeStats(data[:n], len(skills)); !errors.Is(err, errBadStats) {
			t.Fatalf("cut to %d of %d bytes: %v, want errBadStats", n, len(data), err)
		}
	}
	for i := 0; i < len(data); i += 3 {
		bad := slices.Clone(data)
		bad[i] ^= 0x5a
		if ts, err := decodeStats(bad, len(skills)); err == nil {
			checkStatsBounds(t, ts, len(skills))
		}
	}

	head := statsFile(statsMagic).fl(1).uv(2, 2).fl(1, 1.5).uv(1, 0) // two skills
	head = head[:len(head):len(head)]                                // each row appends to its own copy
	huge := uint64(1) << 62
	tests := []struct {
		name string
		data statsFile
		want string // in the error
	}{
		{"bad magic", statsFile("A3PH").fl(1).uv(2, 1).fl(1).uv(0, 0, 0), "bad magic"},
		{"other skill count", statsFile(statsMagic).fl(1).uv(3, 1).fl(1).uv(0, 0, 0, 0), "of 3 skills, want 2"},
		{"skills past the end", statsFile(statsMagic).fl(1).uv(huge), "skills in the 0 bytes left"},
		{"norms past the end", statsFile(statsMagic).fl(1).uv(2, huge), "length normalisations in the 0 bytes left"},
		{"NaN average", statsFile(statsMagic).fl(math.NaN()).uv(2, 1).fl(1).uv(0, 0, 0), "average field length NaN"},
		{"norm below 1-b", statsFile(statsMagic).fl(1).uv(2, 2).fl(1, 0.1).uv(0, 1, 0), "length normalisation 0.1"},
		{"NaN norm", statsFile(statsMagic).fl(1).uv(2, 1).fl(math.NaN()).uv(0, 0, 0), "length normalisation NaN"},
		{"norm of no value", statsFile(statsMagic).fl(1).uv(2, 1).fl(1).uv(0, 1, 0), "skill 1 has length normalisation 1 of 1"},
		{"norms cut off", statsFile(statsMagic).fl(1).uv(2, 1).fl(1).uv(0), "cut off"},
		{"overlong varint", head.s("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"), "overlong"},
		{"terms past the end", head.uv(huge), "terms in the 0 bytes left"},
		{"term longer than the file", head.uv(1, huge), "term bytes in the 0 bytes left"},
		{"terms' bytes past the end", head.uv(2, 3, 3).s("abcd"), "terms of 6 bytes in the 4 left"},
		{"repeated term", head.uv(2, 1, 1).s("aa").uv(1, 1, 0, 1, 1, 1), "listed twice"},
		{"postings past the end", head.uv(1, 1).s("a").uv(huge), "postings in the 0 bytes left"},
		{"postings summed past the end", head.uv(3, 1, 1, 1).s("abc").uv(2, 2, 2, 0, 1, 1, 1), "4 postings in the 5 bytes left"},
		{"posting of no skill", head.uv(1, 1).s("a").uv(1, 2, 1), "not a skill after the last"},
		{"gap past the skills", head.uv(1, 1).s("a").uv(2, 1, 1, huge, 1), "not a skill after the last"},
		{"repeated skill", head.uv(1, 1).s("a").uv(2, 1, 1, 0, 1), "not a skill after the last"},
		{"zero frequency", head.uv(1, 1).s("a").uv(1, 0, 0), "frequency 0"},
		{"frequency past 32 bits", head.uv(1, 1).s("a").uv(1, 0, 1<<32), "frequency 4294967296"},
		{"bytes after the postings", head.uv(1, 1).s("a").uv(1, 0, 1).s("x"), "1 bytes after the postings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			ts, err := decodeStats(tt.data, 2)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, errBadStats) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("%v (%+v), want errBadStats saying %q", err, ts, tt.want)
			}
			if a := after.TotalAlloc - before.TotalAlloc; a > 256<<10 {
				t.Errorf("allocated %d KB decoding %d bytes", a>>10, len(tt.data))
			}
		})
	}
	ok := head.uv(2, 1, 0).s("a").uv(2, 0, 0, 3, 1, 1)
	if ts, err := decodeStats(ok, 2); err != nil || len(ts.ids) != 2 || ts.ids[""] != 1 || len(ts.post) != 2 || !slices.Equal(ts.lengthNorm, []float64{1.5, 1}) {
		t.Fatalf("a well-formed file: %v, %+v", err, ts)
	}
}

// checkStatsBounds fails t if relevance could index out of range with ts.
func checkStatsBounds(t *testing.T, ts *termStats, skills int) {
	t.Helper()
	if len(ts.lengthNorm) != skills || len(ts.start) != len(ts.ids)+1 || len(ts.idf) != len(ts.ids) || int(ts.start[len(ts.ids)]) != len(ts.post) {
		t.Fatalf("decoded lists do not fit together: %d norms, %d terms, %d starts, %d postings", len(ts.lengthNorm), len(ts.ids), len(ts.start), len(ts.post))
	}
	for _, p := range ts.post {
		if int(p.skill) >= skills {
			t.Fatalf("a posting of skill %d of %d", p.skill, skills)
		}
	}
	var terms []term
	for w := range ts.ids {
		terms = append(terms, term{w, w})
	}
	ts.search(terms, nil, skills)
}

// FuzzDecodeStats: no input makes the decoder panic, allocate more than
// a bounded multiple of its size, or return statistics relevance could
// index out of range with.
func FuzzDecodeStats(f *testing.F) {
	m, err := newMapping()
	if err != nil {
		f.Fatal(err)
	}
	ts, err := buildTermStats(context.Background(), &corpus{m: m, skills: Skills(genSkills(3))})
	if err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(f.TempDir(), statsName)
	if err := writeStats(path, ts); err != nil {
		f.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	f.Add(data)
	f.Add([]byte(statsFile(statsMagic).fl(1).uv(3).fl(1, 1, 1).uv(1 << 40)))
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ts, err := decodeStats(data, 3)
		runtime.ReadMemStats(&after)
		if a := after.TotalAlloc - before.TotalAlloc; a > 128*uint64(len(data))+64<<10 {
			t.Fatalf("allocated %d bytes decoding %d", a, len(data))
		}
		if err == nil {
			checkStatsBounds(t, ts, 3)
		}
	})
}
