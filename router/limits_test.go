package router

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// manyWords is a request of n distinct made-up words, none a trigger.
func manyWords(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "zq%dx ", i)
	}
	return b.String()
}

func TestRouteRequestWordLimit(t *testing.T) {
	r, err := New(context.Background(), genSkills(50), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	atLimit := manyWords(MaxRequestWords-2) + "search report"
	tests := []struct {
		name, text string
		tooLong    bool
	}{
		{"at the limit", atLimit, false},
		{"one word over", atLimit + " now", true},
		{"punctuation only, any length", strings.Repeat("-- ", 1<<20), false},
		{"non-ASCII words count", strings.Repeat("ñandú ", MaxRequestWords+1), true},
		// One run of letters, but the index reads it as pairs of
		// characters (bigramSpans): 4,097 pairs is one over.
		{"Chinese pairs at the limit", strings.Repeat("部", MaxRequestWords+1), false},
		{"Chinese pairs, one over", strings.Repeat("部", MaxRequestWords+2), true},
		{"Korean, words of pairs", strings.Repeat("배포해줘 ", MaxRequestWords/3+1), true},
	}
	for _, tt := range tests {
		for _, mode := range []Mode{Ranked, Spec} {
			t.Run(tt.name+"/"+string(mode), func(t *testing.T) {
				got, err := r.Route(context.Background(), tt.text, &Query{Mode: mode})
				if !tt.tooLong {
					if err != nil {
						t.Fatalf("Route: %v", err)
					}
					if tt.name == "at the limit" && (len(got) == 0 || got[0].Name != "search-report-0") {
						t.Errorf("Route at the limit = %+v, want search-report-0 first", got)
					}
					return
				}
				if !errors.Is(err, ErrRequestTooLong) || !strings.Contains(err.Error(), fmt.Sprint(MaxRequestWords)) {
					t.Fatalf("Route err = %v, want ErrRequestTooLong naming the limit %d", err, MaxRequestWords)
				}
			})
		}
	}
}

// lateCancel is a context that is cancelled from its n-th Err call on, so
// a test can see whether a loop checks it part-way.
type lateCancel struct {
	context.Context
	calls, n atomic.Int64
}

func (c *lateCancel) Err() error {
	if c.calls.Add(1) >= c.n.Load() {
		return context.Canceled
	}
	return nil
}

func TestRouteCancelledHugeRequest(t *testing.T) {
	r, err := New(context.Background(), genSkills(50), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	huge := strings.Repeat("... ", 1<<20) // 4 MiB, no word: scanned whole
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if _, err := r.Route(ctx, huge, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Route with a cancelled context: err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Route with a cancelled context took %v", d)
	}
	// Cancelled after Route's first check: the scan itself must notice.
	late := &lateCancel{Context: context.Background()}
	late.n.Store(2)
	if err := checkRequest(late, huge); !errors.Is(err, context.Canceled) {
		t.Fatalf("checkRequest cancelled mid-scan: err = %v, want context.Canceled", err)
	}
	if c := late.calls.Load(); c != 2 {
		t.Errorf("checkRequest checked the context %d times before stopping, want 2", c)
	}
}

func TestAnalyzeDeduplicates(t *testing.T) {
	r, err := New(context.Background(), genSkills(50), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, n := range []int{3, analyzeScanMax, analyzeScanMax + 1, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var words []string
			for i := 0; i < n; i++ {
				words = append(words, fmt.Sprintf("Wq%dx", i))
			}
			// Every word three times, interleaved, the last pass uppercased.
			text := strings.Join(words, " ") + " " + strings.ToLower(strings.Join(words, " ")) + " " + strings.ToUpper(strings.Join(words, " "))
			a := analyze(r.an, text, true)
			for _, got := range [][]term{a.text, a.exact} {
				if len(got) != n {
					t.Fatalf("analyze kept %d terms, want %d distinct", len(got), n)
				}
				for i, tm := range got {
					if want := strings.ToLower(words[i]); tm.term != want || tm.word != want {
						t.Fatalf("term %d = %+v, want %q in first-seen order", i, tm, want)
					}
				}
			}
		})
	}
}

// TestAnalyzeLinear pins that de-duplication is not a scan per term: with
// one, 200,000 distinct terms take some 2·10¹⁰ comparisons (minutes).
func TestAnalyzeLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1.6 MB request")
	}
	r, err := New(context.Background(), genSkills(50), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	a := analyze(r.an, manyWords(200000), true)
	if len(a.text) != 200000 || len(a.exact) != 200000 {
		t.Fatalf("analyze kept %d and %d terms, want 200000", len(a.text), len(a.exact))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("analyzing 200,000 distinct words took %v: de-duplication is not linear", d)
	}
}

// BenchmarkRouteLongRequest routes requests at the word limit: made-up
// words (relaxed tier, nothing hits) and generator words (many phrase hits).
func BenchmarkRouteLongRequest(b *testing.B) {
	var vocab strings.Builder
	for i := 0; vocab.Len() < 0 || i < MaxRequestWords; i++ {
		vocab.WriteString(benchVerbs[i%len(benchVerbs)] + " ")
	}
	texts := map[string]string{"nonsense": manyWords(MaxRequestWords), "vocabulary": vocab.String()}
	for _, n := range []int{4000} {
		skills := synthSkills(b, n)
		r, err := New(context.Background(), skills, &Options{NoCache: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, kind := range []string{"nonsense", "vocabulary"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, kind), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := r.Route(context.Background(), texts[kind], &Query{Limit: 5}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		r.Close()
	}
}
