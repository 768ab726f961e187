package router

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// serialBuild is buildOffline as bleve does it alone: one goroutine maps,
// analyzes and encodes every document.
func serialBuild(t *testing.T, dir string, skills []Skill) {
	t.Helper()
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	b, err := bleve.NewBuilder(dir, m, map[string]interface{}{"buildPathPrefix": t.TempDir(), "batchSize": progressEvery})
	if err != nil {
		t.Fatal(err)
	}
	for i := range skills {
		if err := b.Index(strconv.Itoa(i), document(&skills[i])); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// termScores searches every term of the index field, one at a time, and
// returns each term's hits (id and BM25 score bits): what any relevance
// read from the index is made of.
func termScores(t *testing.T, dir string) map[string][]string {
	t.Helper()
	idx, err := bleve.OpenUsing(dir, map[string]interface{}{"read_only": true})
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	dict, err := idx.FieldDict(indexField)
	if err != nil {
		t.Fatal(err)
	}
	var terms []string
	for e, err := dict.Next(); e != nil || err != nil; e, err = dict.Next() {
		if err != nil {
			t.Fatal(err)
		}
		terms = append(terms, e.Term)
	}
	dict.Close()
	n, _ := idx.DocCount()
	out := map[string][]string{}
	for _, term := range terms {
		q := bleve.NewTermQuery(term)
		q.SetField(indexField)
		res, err := idx.Search(bleve.NewSearchRequestOptions(q, int(n), 0, false))
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			out[term] = append(out[term], fmt.Sprintf("%s=%x", h.ID, math.Float64bits(h.Score)))
		}
		slices.Sort(out[term]) // equal scores come in any order
	}
	return out
}

// TestBuildOfflineMatchesSerial pins that analyzing ahead on other cores
// builds the index a serial build does: every term, every hit, every
// score bit for bit, on one core and on several, across several batches.
// (Builds are not byte-identical even serially: zap's encoding order
// varies.)
func TestBuildOfflineMatchesSerial(t *testing.T) {
	skills := genSkills(2*progressEvery + 37) // several batches, a partial last one
	want := t.TempDir() + "/serial"
	serialBuild(t, want, skills)
	wantScores := termScores(t, want)
	if len(wantScores) < 20 {
		t.Fatalf("serial build has %d terms; the comparison needs a vocabulary", len(wantScores))
	}
	for _, procs := range []int{1, 2, 4} {
		t.Run("procs="+strconv.Itoa(procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			m, err := newMapping()
			if err != nil {
				t.Fatal(err)
			}
			got := t.TempDir() + "/ahead"
			if err := buildOffline(context.Background(), got, t.TempDir(), m, Skills(skills), nil); err != nil {
				t.Fatal(err)
			}
			gotScores := termScores(t, got)
			if len(gotScores) != len(wantScores) {
				t.Fatalf("%d terms, the serial build %d", len(gotScores), len(wantScores))
			}
			for term, w := range wantScores {
				if g := gotScores[term]; !slices.Equal(g, w) {
					t.Fatalf("term %q: hits %.300v, the serial build's %.300v", term, g, w)
				}
			}
		})
	}
}

func TestBuildOfflineCancelled(t *testing.T) {
	skills := genSkills(3 * progressEvery)
	m, err := newMapping()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	progress := func(done, _ int) {
		if done >= progressEvery {
			cancel()
		}
	}
	before := runtime.NumGoroutine()
	err = buildOffline(ctx, t.TempDir()+"/idx", t.TempDir(), m, Skills(skills), progress)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("buildOffline cancelled after %d skills: err = %v, want context.Canceled", progressEvery, err)
	}
	// The analysis goroutines end with the build.
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after a cancelled build, %d before", n, before)
	}
}
