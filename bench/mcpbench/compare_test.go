package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestRatio(t *testing.T) {
	tests := []struct {
		name      string
		ours, ref cmpCell
		want      string
	}{
		{"faster", cmpCell{5, true}, cmpCell{20, true}, "0.25×"},
		{"slower", cmpCell{30, true}, cmpCell{20, true}, "1.50×"},
		{"far slower", cmpCell{250, true}, cmpCell{20, true}, "12.5×"},
		{"no reference", cmpCell{5, true}, cmpCell{}, "—"},
		{"no ours", cmpCell{}, cmpCell{5, true}, "—"},
		{"zero reference", cmpCell{5, true}, cmpCell{0, true}, "—"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatRatio(tt.ours, tt.ref); got != tt.want {
				t.Errorf("formatRatio(%v, %v) = %q, want %q", tt.ours, tt.ref, got, tt.want)
			}
		})
	}
}

// cmpFixture is a result with an odd and an even number of samples per
// side, a metric only ours has, and a failure.
func cmpFixture() *cmpResult {
	r := &cmpResult{Size: 4000, Samples: map[string]map[string][]float64{}, Misses: map[string]int{"reference": 3},
		Errors: []string{"reference, cold: server hung"}}
	for _, v := range []float64{30, 10, 20} {
		r.Samples.add("ours", "ping", v)
	}
	for _, v := range []float64{40, 50, 70, 60} {
		r.Samples.add("reference", "ping", v)
	}
	r.Samples.add("ours", "coldRoute", 90)
	return r
}

func TestWriteCompare(t *testing.T) {
	o := &options{runs: 3, coldRuns: 3, requests: 2000, burst: 300 * time.Millisecond, ref: "bun ref.ts"}
	var b bytes.Buffer
	if err := writeCompare(&b, o, []*cmpResult{cmpFixture()}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"reference: bun ref.ts FILE",
		"4000  ping  20.0 µs  55.0 µs  0.36×", // medians 20 and (50+60)/2
		"4000  spawn → first route, cold  90.0 ms  —  —",
		"3 route_skill answers of reference matched no skill",
		"FAILED size 4000: reference, cold: server hung",
	} {
		if !strings.Contains(squeeze(out), want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "get_skill") {
		t.Errorf("a metric neither side measured has a row:\n%s", out)
	}
	if strings.Contains(out, "floor") {
		t.Errorf("floor columns without floor samples:\n%s", out)
	}

	r := cmpFixture()
	r.Samples.add("floor", "ping", 16)
	b.Reset()
	if err := writeCompare(&b, o, []*cmpResult{r}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"ratio  floor  ours / floor",
		"4000  ping  20.0 µs  55.0 µs  0.36×  16.0 µs  1.25×",
		"4000  spawn → first route, cold  90.0 ms  —  —  —  —",
	} {
		if !strings.Contains(squeeze(b.String()), want) {
			t.Errorf("table with a floor lacks %q:\n%s", want, b.String())
		}
	}
}

var padding = regexp.MustCompile(` {2,}`)

// squeeze collapses the table's alignment padding to two spaces.
func squeeze(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.TrimSpace(padding.ReplaceAllString(l, "  ")))
	}
	return strings.Join(lines, "\n")
}

func TestWriteCompareJSON(t *testing.T) {
	var b bytes.Buffer
	if err := writeCompareJSON(&b, []*cmpResult{cmpFixture()}); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Medians []struct {
			Metric    string
			Ours      *float64
			Reference *float64
			Ratio     *float64
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	m := got[0].Medians
	if len(m) != 2 || m[0].Metric != "ping" || *m[0].Ours != 20 || *m[0].Reference != 55 || *m[0].Ratio != 20.0/55 {
		t.Errorf("ping medians = %+v", m)
	}
	if m[1].Metric != "coldRoute" || m[1].Reference != nil || m[1].Ratio != nil {
		t.Errorf("coldRoute medians = %+v, want no reference and no ratio", m[1])
	}
}

func TestParseFlagsCompare(t *testing.T) {
	tests := []struct {
		args    []string
		compare bool
		sizes   string
		err     string
	}{
		{[]string{}, false, "[10 1000 4000 100000]", ""},
		{[]string{"-compare"}, true, "[10 1000 4000]", ""},
		{[]string{"-ref", "bun ref.ts"}, true, "[10 1000 4000]", ""},
		{[]string{"-ab", "/tmp/old", "-sizes", "4000"}, true, "[4000]", ""},
		{[]string{"-ab", "/tmp/old", "-ref", "bun ref.ts"}, false, "", "pass one"},
		{[]string{"-compare", "-burst", "0s"}, false, "", "-burst must be positive"},
		{[]string{"-compare", "-kinds", "ping,lunch"}, false, "", `"lunch" is not a request kind`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, err := parseFlags(tt.args, io.Discard)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(o.kinds) != len(requestKinds) {
				t.Errorf("kinds %v, want all by default", o.kinds)
			}
			if o.compare != tt.compare || fmt.Sprint(o.sizes) != tt.sizes {
				t.Errorf("compare %v sizes %v, want %v %s", o.compare, o.sizes, tt.compare, tt.sizes)
			}
		})
	}
}

func TestParseKinds(t *testing.T) {
	if k, err := parseKinds("none"); err != nil || k != nil {
		t.Errorf("none = %v, %v; want no kinds", k, err)
	}
	if k, err := parseKinds(" route_skill, ping "); err != nil || fmt.Sprint(k) != "[route_skill ping]" {
		t.Errorf("two kinds = %v, %v", k, err)
	}
}

func TestSkillName(t *testing.T) {
	w := words{Verbs: []string{"a", "b", "c"}, Nouns: []string{"x", "y", "z"}}
	for _, n := range []int{1, 2, 4, 9, 100} {
		v := w.forSize(n)
		for k := 0; k < 20; k++ {
			name := v.skillName(k, n)
			i := strings.Index("abc", name[:1]) + 3*strings.Index("xyz", name[2:])
			if i < 0 || i >= n || name[1] != '-' {
				t.Fatalf("skillName(%d, %d) = %q: not one of the first %d generated skills", k, n, name, n)
			}
		}
	}
}

func TestCompareAgainstFakeServer(t *testing.T) {
	t.Setenv(fakeEnv, "ok")
	p := &cmpProbe{agent: "unused.3md", size: 2, timeout: 10 * time.Second, exitWait: 10 * time.Second, kinds: requestKinds,
		requests: 200, budget: 20 * time.Millisecond,
		words: words{Verbs: []string{"search", "render"}, Nouns: []string{"report"}}}
	fake := contender{label: "ours", argv: func(string, string) []string { return []string{os.Args[0]} }}
	r := &cmpResult{Size: 2, Samples: map[string]map[string][]float64{}, Misses: map[string]int{}}
	if err := p.session(fake, t.TempDir(), 0, r); err != nil {
		t.Fatal(err)
	}
	for _, key := range append([]string{"init", "rss"}, requestKinds...) {
		if s := r.Samples["ours"][key]; len(s) != 1 || s[0] <= 0 {
			t.Errorf("%s samples = %v, want one positive", key, s)
		}
	}
	if r.Misses["ours"] == 0 {
		t.Errorf("no route misses counted; the fake server answers render requests with none")
	}
	if _, _, err := p.coldRoute(fake, t.TempDir(), 0); err != nil {
		t.Fatalf("coldRoute: %v", err)
	}
	t.Setenv(fakeEnv, "toolerror")
	err := p.session(fake, t.TempDir(), 0, r)
	if err == nil || !strings.Contains(err.Error(), "list_skills: tool error: boom") {
		t.Errorf("session against a tool-error server: err = %v", err)
	}
}

// TestCompareSettles: with -settle, a serving session routes once and
// waits before its first timed burst; a server that can only answer
// after a route (the fake's "settle" mode) fails without it.
func TestCompareSettles(t *testing.T) {
	t.Setenv(fakeEnv, "settle")
	p := &cmpProbe{agent: "unused.3md", size: 2, timeout: 10 * time.Second, exitWait: 10 * time.Second, kinds: []string{"ping"},
		requests: 100, budget: 10 * time.Millisecond,
		words: words{Verbs: []string{"search", "render"}, Nouns: []string{"report"}}}
	fake := contender{label: "ours", argv: func(string, string) []string { return []string{os.Args[0]} }}
	r := &cmpResult{Size: 2, Samples: map[string]map[string][]float64{}, Misses: map[string]int{}}
	if err := p.session(fake, t.TempDir(), 0, r); err == nil {
		t.Fatal("without -settle the first ping burst reached the server before any route, yet the session passed")
	}
	p.settle = 200 * time.Millisecond
	start := time.Now()
	if err := p.session(fake, t.TempDir(), 0, r); err != nil {
		t.Fatalf("with -settle: %v", err)
	}
	if d := time.Since(start); d < p.settle {
		t.Errorf("the session took %v, less than the %v it must wait", d, p.settle)
	}
}

func TestParseVmHWM(t *testing.T) {
	if _, ok := liveHWMMB(os.Getpid()); !ok {
		t.Skip("no /proc/PID/status here")
	}
	status := "Name:\tagent3md\nVmPeak:\t  812345 kB\nVmHWM:\t   40960 kB\nVmRSS:\t   30000 kB\n"
	if mb, ok := parseVmHWM([]byte(status)); !ok || mb != 40 {
		t.Errorf("parseVmHWM = %v, %v; want 40 MB", mb, ok)
	}
	if _, ok := parseVmHWM([]byte("Name:\tx\n")); ok {
		t.Error("parseVmHWM found a peak in a status without VmHWM")
	}
}

// TestLiveHWMIgnoresParent pins that a spawned server's peak RSS is its
// own: the test process first grows by 200 MB, which rusage would carry
// into the child's figure across fork and exec.
func TestLiveHWMIgnoresParent(t *testing.T) {
	if _, ok := liveHWMMB(os.Getpid()); !ok {
		t.Skip("no /proc/PID/status here")
	}
	ballast := make([]byte, 200<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	p := testProbe(t, "ok")
	s, err := p.firstRoute(t.TempDir(), 0)
	runtime.KeepAlive(ballast)
	if err != nil {
		t.Fatal(err)
	}
	if s.rssMB <= 0 || s.rssMB >= 150 {
		t.Errorf("fake server's peak RSS = %.1f MB; want its own few MB, not the parent's 200", s.rssMB)
	}
}
