package router

import (
	"context"
	"slices"
	"testing"
)

// TestRunnersUpFollow: after the sure match come the plain ranking's
// skills, as runner-ups with their fit, up to the limit; a skill that
// holds only stop words of the request is never one; Limit 1 is the
// sure match alone.
func TestRunnersUpFollow(t *testing.T) {
	skills := []Skill{
		{Name: "deploy", Z: 1, Triggers: []string{"ship it"}, Description: "Roll the service out to production"},
		{Name: "tail-logs", Z: 2, Triggers: []string{"show logs"}, Description: "Follow the service logs in production"},
		{Name: "weather", Z: 3, Triggers: []string{"forecast"}, Description: "The weather for a city"},
		{Name: "notes", Z: 4, Triggers: []string{"take a note"}, Description: "Keep notes of the meeting"},
	}
	r := newTest(t, skills, nil)
	got := route(t, r, "ship it to production for the service", &Query{Limit: 3})
	if len(got) != 2 || got[0].Name != "deploy" || got[0].Tier != TierPhrase || got[0].Fit != 1 {
		t.Fatalf("got %+v, want deploy (phrase, fit 1) and one runner-up", got)
	}
	if m := got[1]; m.Name != "tail-logs" || m.Tier != TierRunnerUp || m.Fit <= 0 || m.Fit >= 1 || len(m.Hits) != 2 {
		t.Errorf("runner-up %+v, want tail-logs with a fit between 0 and 1 and its two words", m)
	}
	if got := route(t, r, "ship it to production for the service", &Query{Limit: 1}); len(got) != 1 || got[0].Name != "deploy" {
		t.Errorf("limit 1: %+v, want deploy alone", got)
	}
	// Nothing sure and nothing relaxed: the plain ranking is the answer,
	// every line a runner-up.
	got = route(t, r, "what about the city", nil)
	if len(got) != 1 || got[0].Name != "weather" || got[0].Tier != TierRunnerUp {
		t.Errorf("a request only a description's word meets: %+v, want weather as a runner-up", got)
	}
	if got := route(t, r, "what is it for", nil); len(got) != 0 {
		t.Errorf("stop words alone: %+v, want nothing", got)
	}
}

// TestFit: the share of the request's idf the skill holds, a word no
// skill holds weighing as a word one skill in N+1 would.
func TestFit(t *testing.T) {
	p := newPlainBM25(Skills{
		{Name: "pdf", Z: 1, Description: "read pdf files"},
		{Name: "csv", Z: 2, Description: "read csv files"},
	})
	toks := *(&plainText{text: "read the pdf zebra"}).read(p)
	var words []string
	fit := p.fit(&toks, 0, &words)
	idfRead, idfPdf, idfNone := p.idf(2), p.idf(1), p.idf(0)
	want := float64(int(100*(idfRead+idfPdf)/(idfRead+idfPdf+idfNone)+0.5)) / 100
	if fit != want || len(words) != 2 {
		t.Errorf("fit %v %q, want %v and pdf, read", fit, words, want)
	}
	if fit := p.fit(&toks, 1, nil); fit >= want {
		t.Errorf("csv fits %v, no more than pdf's %v", fit, want)
	}
}

// TestSureSkillPositions: the skill positions sure leaves in the tally
// (t.at), which the lone-everyday rule reads instead of searching each
// match's skill by z and name (skillAt), are its matches' skills, and
// are left empty when a relaxed challenger may have reordered them.
func TestSureSkillPositions(t *testing.T) {
	agents := map[string][]Skill{"synth": synthSkills(t, 10), "devtools": loadAgentSkills(t, "../examples/devtools.3md")}
	for _, tt := range []struct {
		agent, text string
		limit       int
	}{
		{"synth", "please deploy the nightly report", 0},
		{"synth", "please deploy the nightly report", 5},
		{"synth", "report", 0},
		{"synth", "report", 1},
		{"devtools", "run the tests and lint the code", 0},
		{"devtools", "the style of the tests", 0},
		{"devtools", "review the diff of my branch before I open a pull request on github for the team", 3},
		{"devtools", "write a commit message for these staged changes and open a pull request", 0},
	} {
		r := newTest(t, agents[tt.agent], nil)
		tl := r.getTally()
		sp := r.specificsOf()
		rq := r.readRequest(tl, sp, tt.text)
		tl.memo, rq.memo = searchMemo{}, &tl.memo
		r.collect(tl, sp, rq)
		if len(tl.seen) == 0 {
			t.Fatalf("%q hits no phrase: no sure matches to test", tt.text)
		}
		out, err := r.sure(context.Background(), tl, sp, rq, tt.text, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(tl.at) != 0 && len(tl.at) != len(out) {
			t.Errorf("%q: %d positions for %d matches", tt.text, len(tl.at), len(out))
		}
		for i := range tl.at {
			if want := r.skillAt(out[i]); tl.at[i] != want {
				t.Errorf("%q: match %d (%s) at %d, want %d", tt.text, i, out[i].Name, tl.at[i], want)
			}
		}
		r.putTally(tl)
	}
}

// TestPlainTextOfRoute: a route's plain request, which for an ASCII text
// is read from the route's own words (request.words) in the route's
// pooled tally, is the one read afresh from the text (requestWords), for
// requests with stop words, repeats, capitals, digits, punctuation and
// other scripts, read one after another through one tally.
func TestPlainTextOfRoute(t *testing.T) {
	r := newTest(t, loadAgentSkills(t, "../examples/devtools.3md"), nil)
	p := r.plainIndex()
	sp := r.specificsOf()
	tl := r.getTally()
	defer r.putTally(tl)
	for _, text := range []string{
		"send my branch to the team on GitHub so they can review it",
		"Run the tests, then run the TESTS again",
		"", "the of and", "lint v2 of pkg/router.go please",
		"吊牌还在，没洗过，能退吗", "review the café's diff",
		"please deploy the nightly report",
	} {
		r.readRequest(tl, sp, text)
		got := tl.plainText(text).read(p)
		want := (&plainText{text: text}).read(p)
		if !slices.Equal(got.toks, want.toks) || got.total != want.total || len(got.words) != len(want.words) {
			t.Errorf("%q: read %v (idf %v), want %v (idf %v)", text, got.toks, got.total, want.toks, want.total)
		}
		if !slices.Equal(want.toks, requestWords(text)) {
			t.Errorf("%q: %v, want requestWords %v", text, want.toks, requestWords(text))
		}
	}
}

// raceEnabled is set when the tests run under the race detector.
var raceEnabled bool

// TestRouteAllocs bounds the allocations of a Ranked route on a small
// agent (BenchmarkRouteSmall's requests): issue 33 holds a 10-skill
// route to 5b7b36c's cost, and on a small agent a route's garbage is
// much of it. Each runner-up's hits, the relaxed answer's regrowth and
// the relevance lists' doublings each cost relaxed-hits an allocation
// (21 a route at f5abca3, 9 after issue 33's third pass).
func TestRouteAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops pooled memory at random")
	}
	for _, tc := range []struct {
		agent, text string
		limit, most int
	}{
		{"../examples/devtools.3md", "send my branch to the team on GitHub so they can review it", 5, 16},
	} {
		r, err := New(context.Background(), loadAgentSkills(t, tc.agent), &Options{NoCache: true, Background: true})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		q := &Query{Limit: tc.limit}
		n := testing.AllocsPerRun(200, func() {
			if _, err := r.Route(context.Background(), tc.text, q); err != nil {
				t.Fatal(err)
			}
		})
		if n > float64(tc.most) {
			t.Errorf("%q (limit %d): %v allocations a route, want at most %d", tc.text, tc.limit, n, tc.most)
		}
	}
}

// TestRunnerUpHitsApart: runner-ups' hits are cut from one array a
// route; a caller's append to one match's hits never writes into the
// next one's.
func TestRunnerUpHitsApart(t *testing.T) {
	r := newTest(t, loadAgentSkills(t, "../examples/devtools.3md"), nil)
	got := route(t, r, "send my branch to the team on GitHub so they can review it", &Query{Limit: 5})
	runnersUp := 0
	for _, m := range got {
		if m.Tier == TierRunnerUp {
			runnersUp++
		}
	}
	if runnersUp < 2 {
		t.Fatalf("%s: want two runner-ups at least", brief(got))
	}
	before := make([][]string, len(got))
	for i, m := range got {
		before[i] = slices.Clone(m.Hits)
	}
	for i := range got {
		_ = append(got[i].Hits, "appended")
		for k, m := range got {
			if !slices.Equal(m.Hits, before[k]) {
				t.Fatalf("an append to %s's hits made %s's %q, was %q", got[i].Name, m.Name, m.Hits, before[k])
			}
		}
	}
}

// TestRunnersUpKeepPlainShown: a Chinese request whose only words in
// common with a skill are among the commonest characters (了, 吗) lists
// that skill, showing them, when the answer has nothing better and the
// plain ranking lists it within the limit: an answer of guesses never
// drops what a plain search would show. Beside a sure match it is left
// out: nothing the reader needs.
func TestRunnersUpKeepPlainShown(t *testing.T) {
	r := newTest(t, []Skill{
		{Name: "refund", Z: 1, Triggers: []string{"退款"}, Description: "买家要退款"},
		{Name: "exchange", Z: 2, Triggers: []string{"换货"}, Description: "买家要换尺码"},
		{Name: "greet", Z: 3, Triggers: []string{"你好"}, Description: "好了，行吗"},
	}, nil)
	got := route(t, r, "到了吗", &Query{Mode: Ranked, Limit: DefaultLimit})
	if len(got) != 1 || got[0].Name != "greet" || got[0].Tier != TierRunnerUp || !slices.Equal(got[0].Hits, []string{"了", "吗"}) {
		t.Errorf("common characters only: %s, want greet alone as a runner-up showing 了 吗", brief(got))
	}
	got = route(t, r, "退款到了吗", &Query{Mode: Ranked, Limit: DefaultLimit})
	if len(got) != 1 || got[0].Name != "refund" || got[0].Tier != TierPhrase {
		t.Errorf("beside a sure match: %s, want refund alone", brief(got))
	}
}
