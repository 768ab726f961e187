package router

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const testHash = "0123456789abcdef"

// genSkills makes n distinct skills shaped like the benchmark generator's.
func genSkills(n int) []Skill {
	verbs := []string{"search", "deploy", "render", "compile", "merge", "audit", "index", "sync", "price", "trace"}
	nouns := []string{"report", "image", "ledger", "commit", "ticket", "volume", "token", "order"}
	out := make([]Skill, n)
	for i := range out {
		v, o := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		out[i] = Skill{
			Name:        fmt.Sprintf("%s-%s-%d", v, o, i),
			Z:           float64(i + 1),
			Triggers:    []string{v + " " + o, v, o, fmt.Sprintf("%s the %s %d", v, o, i)},
			Description: fmt.Sprintf("Use this to %s a %s.", v, o),
			Tool:        "tool" + fmt.Sprint(i%7) + " {path}",
			Inputs:      []string{"path"},
		}
	}
	return out
}

func cacheOpts(dir string) *Options {
	return &Options{ContentHash: testHash, CacheDir: dir, MemoryThreshold: -1}
}

var cacheRequests = []string{"please search the latest report", "deploy ledger 17", "trace", "unrelated words"}

// flipLastByte damages the file at p by one bit.
func flipLastByte(p string) {
	b, _ := os.ReadFile(p)
	if len(b) > 0 {
		b[len(b)-1] ^= 1
		os.WriteFile(p, b, 0o644)
	}
}

// sameRoutes checks r routes like an in-memory router over the same skills.
func sameRoutes(t *testing.T, r *Router, skills []Skill) {
	t.Helper()
	mem := newTest(t, skills, &Options{NoCache: true})
	for _, text := range cacheRequests {
		for _, mode := range []Mode{Spec, Ranked} {
			q := &Query{Mode: mode, Limit: 5}
			if got, want := route(t, r, text, q), route(t, mem, text, q); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %q: cached index routes %+v, in-memory %+v", mode, text, got, want)
			}
		}
	}
}

func TestCacheLifecycle(t *testing.T) {
	dir := t.TempDir()
	skills := genSkills(50)
	r := newTest(t, skills, cacheOpts(dir))
	if info := r.Info(); info.Index != IndexCacheBuilt || info.Skills != 50 || info.Path == "" {
		t.Fatalf("first open: %+v, want a built cache entry", info)
	}
	sameRoutes(t, r, skills)
	r.Close()
	r2 := newTest(t, skills, cacheOpts(dir))
	if info := r2.Info(); info.Index != IndexCacheHit || info.Reason != "" {
		t.Fatalf("second open: %+v, want a cache hit", info)
	}
	sameRoutes(t, r2, skills)
	// A reader must not change the entry: it still verifies after use.
	r2.Close()
	want := fingerprint(&corpus{skills: Skills(skills), bodyTerms: DefaultBodyTerms})
	if m, err := verifyEntry(r2.Info().Path, testHash, len(skills)); err != nil || m.Fingerprint != want {
		t.Fatalf("entry changed by a read-only open: %v (manifest %+v, want fingerprint %08x)", err, m, want)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary directories left behind: %v", left)
	}
}

func TestCacheRejectsBadEntries(t *testing.T) {
	skills := genSkills(30)
	segment := func(entry string) string {
		m, _ := filepath.Glob(filepath.Join(entry, indexSubdir, "store", "*.zap"))
		if len(m) != 1 {
			t.Fatalf("want one segment, found %v", m)
		}
		return m[0]
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, entry string)
		skills []Skill // the next open's skills; default skills
	}{
		{"truncated segment", func(t *testing.T, e string) { os.Truncate(segment(e), 100) }, nil},
		{"flipped byte", func(t *testing.T, e string) {
			p := segment(e)
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0xff
			os.WriteFile(p, b, 0o644)
		}, nil},
		{"garbage manifest", func(t *testing.T, e string) { os.WriteFile(filepath.Join(e, manifestName), []byte("{not json"), 0o644) }, nil},
		{"missing manifest", func(t *testing.T, e string) { os.Remove(filepath.Join(e, manifestName)) }, nil},
		{"other schema", func(t *testing.T, e string) {
			p := filepath.Join(e, manifestName)
			b, _ := os.ReadFile(p)
			old := fmt.Sprintf(`"schema": %d`, SchemaVersion)
			if !strings.Contains(string(b), old) {
				t.Fatalf("manifest lacks %s", old)
			}
			os.WriteFile(p, []byte(strings.Replace(string(b), old, `"schema": 99`, 1)), 0o644)
		}, nil},
		{"extra file", func(t *testing.T, e string) { os.WriteFile(filepath.Join(e, indexSubdir, "stray"), nil, 0o644) }, nil},
		{"missing index", func(t *testing.T, e string) { os.RemoveAll(filepath.Join(e, indexSubdir)) }, nil},
		{"damaged phrase index", func(t *testing.T, e string) { flipLastByte(filepath.Join(e, phrasesName)) }, nil},
		{"damaged term statistics", func(t *testing.T, e string) { flipLastByte(filepath.Join(e, statsName)) }, nil},
		{"truncated term statistics", func(t *testing.T, e string) { os.Truncate(filepath.Join(e, statsName), 40) }, nil},
		{"missing term statistics", func(t *testing.T, e string) { os.Remove(filepath.Join(e, statsName)) }, nil},
		{"foreign skills under the same hash", func(*testing.T, string) {}, genSkills(31)[1:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := newTest(t, skills, cacheOpts(dir))
			entry := r.Info().Path
			r.Close()
			tt.damage(t, entry)
			next := skills
			if tt.skills != nil {
				next = tt.skills
			}
			r2 := newTest(t, next, cacheOpts(dir))
			info := r2.Info()
			if info.Index != IndexCacheBuilt || !strings.Contains(info.Reason, "rejected") {
				t.Fatalf("got %+v, want a rebuilt entry saying why", info)
			}
			sameRoutes(t, r2, next)
		})
	}
}

func TestCacheConcurrentBuilders(t *testing.T) {
	dir := t.TempDir()
	skills := genSkills(200)
	const n = 4
	routers := make([]*Router, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			routers[i], errs[i] = New(context.Background(), skills, cacheOpts(dir))
		}()
	}
	wg.Wait()
	for i, r := range routers {
		if errs[i] != nil {
			t.Fatalf("builder %d: %v", i, errs[i])
		}
		t.Logf("builder %d: %+v", i, r.Info())
		sameRoutes(t, r, skills)
		r.Close()
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary directories left behind: %v", left)
	}
	r := newTest(t, skills, cacheOpts(dir))
	if r.Info().Index != IndexCacheHit {
		t.Errorf("after the race: %+v, want a cache hit", r.Info())
	}
}

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	skills := genSkills(2500)
	var calls [][2]int
	opts := cacheOpts(dir)
	opts.MemoryThreshold = 0 // Build ignores it
	opts.Progress = func(done, total int) { calls = append(calls, [2]int{done, total}) }
	info, err := buildEntry(context.Background(), skills, opts)
	if err != nil || info.Index != IndexCacheBuilt {
		t.Fatalf("Build: %+v, %v", info, err)
	}
	want := [][2]int{{1000, 2500}, {2000, 2500}, {2500, 2500}}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("progress %v, want %v", calls, want)
	}
	if info, err := buildEntry(context.Background(), skills, opts); err != nil || info.Index != IndexCacheHit {
		t.Errorf("second Build: %+v, %v; want a cache hit", info, err)
	}
}

func TestCacheFallsBackToMemory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, nil, 0o644)
	skills := genSkills(20)
	tests := []struct {
		name string
		opts *Options
		why  string
	}{
		{"cache dir is a file", &Options{ContentHash: testHash, CacheDir: file, MemoryThreshold: -1}, "cache unusable"},
		{"hash is not hex", &Options{ContentHash: "../../etc", CacheDir: t.TempDir(), MemoryThreshold: -1}, "not hexadecimal"},
		{"no cache", &Options{ContentHash: testHash, CacheDir: t.TempDir(), MemoryThreshold: -1, NoCache: true}, ""},
		{"small agent", &Options{ContentHash: testHash, CacheDir: t.TempDir()}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTest(t, skills, tt.opts)
			info := r.Info()
			if info.Index != IndexMemory || !strings.Contains(info.Reason, tt.why) {
				t.Fatalf("got %+v, want an in-memory index, reason containing %q", info, tt.why)
			}
			sameRoutes(t, r, skills)
		})
	}
}

func TestPhrasesRoundTrip(t *testing.T) {
	skills := append(genSkills(40), Skill{Name: "odd", Z: 99, Triggers: []string{"", "!!", "Ärger melden", "x"}})
	want := buildPhrases(Skills(skills))
	path := filepath.Join(t.TempDir(), phrasesName)
	if err := writePhrases(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := readPhrases(path, Skills(skills))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("phrase index changed through its file")
	}
	data, _ := os.ReadFile(path)
	// Every truncation and a flipped byte at every 7th offset: an error or
	// a consistent index, never a panic.
	for n := 0; n < len(data); n++ {
		os.WriteFile(path, data[:n], 0o644)
		if _, err := readPhrases(path, Skills(skills)); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(data))
		}
	}
	for i := 0; i < len(data); i += 7 {
		bad := slices.Clone(data)
		bad[i] ^= 0x5a
		os.WriteFile(path, bad, 0o644)
		if x, err := readPhrases(path, Skills(skills)); err == nil {
			r := &Router{src: Skills(skills), phrases: x, zRank: zOrder(Skills(skills))}
			r.routeSpec("search report deploy ledger ärger melden x", 0)
		}
	}
	os.WriteFile(path, data, 0o644)
	if _, err := readPhrases(path, Skills(skills[:3])); err == nil {
		t.Error("an index for other skills was accepted")
	}
}

func TestSweepStale(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * staleAge)
	for _, name := range []string{".build-a-1", ".trash-2", ".build-fresh-3", "index-v3-ab", ".other"} {
		os.Mkdir(filepath.Join(dir, name), 0o755)
		if name != ".build-fresh-3" {
			os.Chtimes(filepath.Join(dir, name), old, old)
		}
	}
	sweepStale(dir, time.Now().Add(-staleAge))
	var left []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if want := []string{".build-fresh-3", ".other", "index-v3-ab"}; !reflect.DeepEqual(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

// buildEntry makes sure the on-disk cache holds a valid index for skills
// (kept when it checks out, else rebuilt), ignoring MemoryThreshold.
func buildEntry(ctx context.Context, skills []Skill, opts *Options) (Info, error) {
	m, err := newMapping()
	if err != nil {
		return Info{}, err
	}
	r := &Router{src: Skills(skills), mapping: m, opts: opts.withDefaults()}
	c, err := r.fromCache(ctx)
	if err != nil {
		return Info{}, err
	}
	if c.cleanup != nil {
		defer c.cleanup()
	}
	return Info{Index: c.kind, Skills: len(skills), Path: c.path}, c.idx.Close()
}
